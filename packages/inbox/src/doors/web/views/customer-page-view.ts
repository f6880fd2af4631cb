/** The customer's page of an item and its refusals (docs/web.md "The customer's page"): plain HTML, no script. */
import { attr, html, safeHref, type Html, type HtmlValue } from '@svc/shared';
import type { z } from 'zod';
import type { BusinessProfile } from '../../../domain/catalogue/profile.js';
import { customerPagePath } from '../../../domain/items/page-token.js';
import type { statusViewSchema } from '../../../domain/items/views.js';
import { writeMoney, writeWhen, type Reader } from '../../../domain/mail/reader-language.js';
import type { Settings } from '../../../domain/settings/settings-document.js';
import type { ItemRecord } from '../../../domain/types.js';
import type { CustomerTexts } from '../customer-texts.js';

type StatusView = z.infer<typeof statusViewSchema>;

export interface CustomerPageState {
  t: CustomerTexts;
  reader: Reader;
  business: BusinessProfile;
  settings: Settings;
  item: ItemRecord;
  view: StatusView;
  csrf: string;
  formKey: () => string;
  styles: string;
  nowMs: number;
  done?: 'replied' | 'cancelled' | 'accepted' | undefined;
  /** A refusal said in words. */
  problem?: string | undefined;
  /** What the customer had written, kept when sending it was refused. */
  draft?: string | undefined;
}

function frame(lang: string, title: string, business: string, styles: string, body: Html): string {
  return html`<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow"><title>${title} · ${business}</title>
<link rel="stylesheet" href="${styles}">
</head><body>
<header class="top"><div class="bar"><span class="brand">${business}</span></div></header>
<main id="main">
${body}
</main>
</body></html>`.text;
}

function notice(kind: 'ok' | 'bad', text: string): Html {
  return html`<p class="notice ${kind}" role="${kind === 'bad' ? 'alert' : 'status'}">${text}</p>`;
}

export function renderLinkRefusal(options: { t: CustomerTexts; business: string; styles: string; why: 'wrong' | 'missing' | 'notFound' }): string {
  const { t } = options;
  return frame(t.lang, t.link.title, options.business, options.styles, html`<h1>${t.link.title}</h1>${notice('bad', t.link[options.why])}`);
}

function row(label: string, value: HtmlValue): Html {
  return html`<dt>${label}</dt><dd>${value}</dd>`;
}

function details(state: CustomerPageState): Html {
  const { t, reader, view, nowMs } = state;
  const p = view.payload as Record<string, unknown>;
  const rows: Html[] = [];
  const money = (minor: unknown, currency: unknown) => writeMoney(minor, currency, reader) ?? t.details.toBeConfirmed;
  if (view.type === 'booking') {
    rows.push(row(t.details.service, String(p.serviceName ?? '')));
    const duration = typeof p.durationMinutes === 'number' ? ` (${t.details.duration(p.durationMinutes)})` : '';
    if (typeof p.startTime === 'string') rows.push(row(t.details.when, html`<time datetime="${p.startTime}">${writeWhen(p.startTime, reader, nowMs)}</time>${duration}`));
    if (typeof p.partySize === 'number' && p.partySize > 1) rows.push(row(t.details.people, String(p.partySize)));
    rows.push(row(t.details.price, money(p.price, p.priceCurrency)));
  } else if (view.type === 'order') {
    const lines = Array.isArray(p.lines) ? (p.lines as { name?: string; quantity?: number; price?: number | null }[]) : [];
    rows.push(row(t.details.lines, html`<ul class="plain">${lines.map((line) => html`<li>${line.quantity ?? 1} × ${line.name ?? ''} — ${money(line.price, p.priceCurrency)}</li>`)}</ul>`));
    rows.push(row(t.details.total, money(p.totalPrice, p.priceCurrency)));
    const pay = typeof p.paymentUrl === 'string' ? safeHref(p.paymentUrl) : null;
    if (pay && view.state === 'awaiting_payment') rows.push(row(t.details.pay, html`<a href="${pay}" rel="noreferrer">${pay}</a>`));
  } else if (view.type === 'quote_request') {
    const quote = (p.quote ?? null) as Record<string, unknown> | null;
    if (typeof p.description === 'string') rows.push(row(t.details.subject, p.description));
    if (quote) {
      rows.push(row(t.details.quote, money(quote.totalPrice, quote.priceCurrency)));
      if (typeof quote.validThrough === 'string') rows.push(row(t.details.validUntil, writeWhen(quote.validThrough, reader, nowMs)));
    }
  } else if (typeof p.subject === 'string') {
    rows.push(row(t.details.subject, p.subject));
  }
  return html`<dl class="facts">${rows}</dl>`;
}

function hidden(state: CustomerPageState, withVersion: boolean): Html {
  return html`<input type="hidden" name="csrf" value="${state.csrf}"><input type="hidden" name="idempotency_key" value="${state.formKey()}">${
    withVersion ? html`<input type="hidden" name="expected_version" value="${state.view.version}">` : null
  }`;
}

function proposal(state: CustomerPageState): Html | null {
  const { t, reader, view, nowMs } = state;
  const offer = (view.payload as Record<string, unknown>).proposal as Record<string, unknown> | undefined;
  if (view.type !== 'booking' || !offer || typeof offer.startTime !== 'string') return null;
  const canAccept = view.next.some((step) => step.operation === 'accept_offer' && step.event === 'accept');
  return html`<section class="card" aria-labelledby="proposal-title"><h2 id="proposal-title">${t.proposal.heading}</h2>
<p>${t.proposal.lead(state.business.name)} <strong><time datetime="${offer.startTime}">${writeWhen(offer.startTime, reader, nowMs)}</time></strong>${
    typeof offer.price === 'number' ? html` — ${writeMoney(offer.price, (view.payload as Record<string, unknown>).priceCurrency, reader)}` : null
  }</p>${typeof offer.note === 'string' ? html`<p>${offer.note}</p>` : null}
${canAccept ? html`<form method="post" action="${customerPagePath(view.id)}/accept">${hidden(state, true)}<button type="submit" class="primary">${t.proposal.accept}</button></form>` : null}
</section>`;
}

function conversation(state: CustomerPageState): Html {
  const { t, reader, view, nowMs } = state;
  const entries = view.conversation.filter((entry) => !entry.internal);
  const list =
    entries.length === 0
      ? html`<p class="muted">${t.conversation.empty}</p>`
      : html`<ol class="conversation">${entries.map(
          (entry) => html`<li${attr('class', entry.from === 'customer' ? 'mine' : null)}><p class="small muted"><strong>${
            entry.from === 'customer' ? t.conversation.you : state.business.name
          }</strong> · <time datetime="${entry.createdAt}">${writeWhen(entry.createdAt, reader, nowMs)}</time></p><p class="text">${entry.text}</p></li>`,
        )}</ol>`;
  return html`<section class="card" aria-labelledby="messages-title"><h2 id="messages-title">${t.conversation.heading}</h2>${list}
<form method="post" action="${customerPagePath(view.id)}/reply">${hidden(state, false)}
<h3>${t.reply.heading(state.business.name)}</h3>
<label for="message">${t.reply.label}</label>
<textarea id="message" name="message" rows="4" maxlength="20000" required>${state.draft ?? ''}</textarea>
<p><button type="submit" class="primary">${t.reply.send}</button></p>
</form></section>`;
}

function cancelForm(state: CustomerPageState): Html | null {
  const { t, reader, view, item, nowMs, settings } = state;
  if (!view.next.some((step) => step.operation === 'cancel_item')) return null;
  const notes: string[] = [];
  if (item.type === 'booking' && view.state === 'confirmed' && item.startAt !== null) {
    const until = item.startAt - settings.booking.cancellationWindowMinutes * 60_000;
    if (until > nowMs) notes.push(t.cancel.freeUntil(writeWhen(until, reader, nowMs)));
    if (settings.booking.lateCancellation === 'record' && until > nowMs) notes.push(t.cancel.lateAfter(writeWhen(until, reader, nowMs)));
  }
  return html`<section class="card" aria-labelledby="cancel-title"><h2 id="cancel-title">${t.cancel.heading[view.type]}</h2>
${notes.map((text) => html`<p>${text}</p>`)}
<form method="post" action="${customerPagePath(view.id)}/cancel">${hidden(state, true)}
<p><label class="inline"><input type="checkbox" name="confirm" value="1" required> ${t.cancel.confirm[view.type]}</label></p>
<label for="reason">${t.cancel.reason}</label><input type="text" id="reason" name="reason" maxlength="2000">
<p><button type="submit" class="danger">${t.cancel.button[view.type]}</button></p>
</form></section>`;
}

function contact(state: CustomerPageState): Html | null {
  const b = state.business;
  const address = b.address ? [b.address.streetAddress, [b.address.postalCode, b.address.addressLocality].filter(Boolean).join(' ')].filter(Boolean).join(', ') : '';
  const phone = b.telephone ? html`<a href="tel:${b.telephone.replace(/[^+\d]/g, '')}">${b.telephone}</a>` : null;
  if (!address && !phone) return null;
  return html`<footer class="card small" aria-label="${state.t.contact}"><p><strong>${b.name}</strong>${address ? html`<br>${address}` : null}${phone ? html`<br>${phone}` : null}</p></footer>`;
}

export function renderCustomerPage(state: CustomerPageState): string {
  const { t, view } = state;
  const explain = t.explain[view.state];
  const body = html`<h1>${t.title[view.type]}</h1>
${state.done ? notice('ok', t.done[state.done]) : null}${state.problem ? notice('bad', state.problem) : null}
<section class="card" aria-labelledby="state-title"><h2 id="state-title"><span class="badge accent">${t.state[view.state] ?? view.state}</span></h2>
${explain ? html`<p>${explain(state.business.name)}</p>` : null}
${details(state)}
</section>
${proposal(state)}
${conversation(state)}
${cancelForm(state)}
${contact(state)}`;
  return frame(t.lang, t.title[view.type], state.business.name, state.styles, body);
}
