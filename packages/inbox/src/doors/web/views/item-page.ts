/**
 * One item: its typed fields, exactly the moves the owner may make now, the conversation with a reply
 * and an internal note, receipts, the customer panel and the history. Regions marked data-live-region
 * are what live updates replace; the reply box is not, so a half-written answer is never lost.
 */
import { attr, html, safeHref, type Html } from '@svc/shared';
import type { AppCall } from '../app-kit.js';
import { formatInstant, formatMoney, toLocalInput } from './format.js';
import { handoverWordsOf, stateLabel, typeLabel, whoOf, type ListedItem } from './item-summary.js';
import { notice, postForm, type PageFrame } from './layout.js';
import { renderMoves, type Transition } from './move-forms.js';

export interface OwnerItem extends ListedItem {
  channel: string;
  linkedItemId: string | null;
  events: { id: string; type: string; event: string; fromState: string | null; toState: string; version: number; by: { kind: string; id: string | null; name: string | null }; channel: string; reason: string | null; timestamp: string }[];
  conversation: { id: string; from: string; authorKind: string; authorName: string | null; text: string; internal: boolean; channel: string; createdAt: string }[];
  receipts: { receipt_id: string; kind: string; outcome: string | null; event: string; issued_at: string; kid: string; acknowledged: boolean; sandbox: boolean }[];
  transitions: Transition[];
  customer: {
    match: string;
    possible: string | null;
    known: boolean;
    history: { items: number; completed: number; noShows: number; cancelledLate: number };
    persons: Record<string, unknown>[];
    agent: Record<string, unknown> | null;
  };
}

/** The next free starts of a booking whose slot is full, or null when it is not (booking-time.ts fullSlotOf). */
export type FullSlotCheck = (itemId: string) => Promise<{ start: string; end: string }[] | null>;

export async function renderItemPage(app: AppCall, id: string, csrf: string, nowMs: number, problem: Html | null = null, fullSlot?: FullSlotCheck): Promise<PageFrame> {
  const item = await app.call<OwnerItem>('get_item', { id });
  // Confirm is not offered when the slot is full: say so, and offer the next free times as a proposal.
  const canPropose = item.transitions.some((move) => move.event === 'propose');
  const confirmable = item.transitions.some((move) => move.event === 'confirm');
  const free = item.type === 'booking' && canPropose && !confirmable && fullSlot ? await fullSlot(item.id) : null;
  // An order's steps in words that fit how the business hands orders over (Setup › Settings).
  const handover = item.type === 'order' ? await handoverWordsOf(app) : null;
  const t = app.t;
  const zone = app.profile.timeZone;
  const title = `${typeLabel(t, item.type)} · ${whoOf(item)}`;
  const body = html`<p><a href="/app/inbox${item.sandbox ? '?sandbox=1' : ''}">← ${t.nav.inbox}</a></p>
<h1>${title}</h1>
${problem}
${item.sandbox ? notice('warn', t.item.sandbox) : null}
<div data-live-region="state"><p><span class="badge accent">${handover?.states[item.state] ?? stateLabel(t, item.state)}</span> <span class="muted small">${t.item.version} ${item.version}</span>${
    item.needsHuman ? html` <span class="badge warn">${t.inbox.needsHuman}</span>` : null
  }</p></div>
<div class="item-grid">
<div>
<section class="card" aria-labelledby="moves-title"><h2 id="moves-title">${t.item.moves}</h2><div data-live-region="moves">${free ? renderFullSlot(app, item, free, csrf) : null}${renderMoves(app, item, item.transitions, csrf, handover?.moves, nowMs)}</div></section>
<section class="card" aria-labelledby="details-title"><h2 id="details-title">${t.item.details}</h2><div data-live-region="details">${renderPayload(app, item)}</div></section>
<section class="card" aria-labelledby="customer-title"><h2 id="customer-title">${t.item.customer}</h2>${renderCustomer(app, item)}</section>
<section class="card" aria-labelledby="flags-title"><h2 id="flags-title">${t.item.flags}</h2>${renderFlags(app, item, csrf)}</section>
</div>
<div>
<section class="card" aria-labelledby="conversation-title"><h2 id="conversation-title">${t.item.conversation}</h2>
<div data-live-region="conversation">${renderConversation(app, item, nowMs)}</div>
${postForm(
  `/app/items/${item.id}/reply`,
  csrf,
  app.formKey(),
  html`<label for="reply">${t.item.reply}</label><textarea id="reply" name="message" required maxlength="20000"></textarea>
<div class="actions"><button type="submit" class="primary">${t.item.send}</button></div>`,
)}
${postForm(
  `/app/items/${item.id}/reply`,
  csrf,
  app.formKey(),
  html`<input type="hidden" name="internal" value="1"><label for="note">${t.item.note}</label><textarea id="note" name="message" required maxlength="20000"></textarea>
<div class="actions"><button type="submit">${t.item.addNote}</button></div>`,
)}
</section>
<section class="card" aria-labelledby="receipts-title"><h2 id="receipts-title">${t.item.receipts}</h2><div data-live-region="receipts">${renderReceipts(app, item)}</div></section>
<section class="card" aria-labelledby="history-title"><h2 id="history-title">${t.item.history}</h2><div data-live-region="history">${renderHistory(app, item, zone)}</div></section>
</div>
</div>`;
  return { title, section: 'inbox', body, live: { since: new Date(nowMs).toISOString(), item: item.id } };
}

function money(app: AppCall, minor: unknown, currency: unknown): string {
  return typeof minor === 'number' ? formatMoney(minor, typeof currency === 'string' ? currency : app.profile.currency, app.lang) : '';
}

function renderPayload(app: AppCall, item: OwnerItem): Html {
  const t = app.t;
  const p = item.payload;
  const zone = app.profile.timeZone;
  const rows: [string, Html | string][] = [];
  const add = (label: string, value: Html | string | null | undefined) => {
    if (value !== null && value !== undefined && value !== '') rows.push([label, value]);
  };
  const contact = item.contact;
  if (contact) {
    add(t.item.customer, [contact.name, contact.email, contact.phone].filter(Boolean).join(' · '));
  }
  if (item.type === 'booking') {
    add(t.fields.serviceName ?? 'Service', String(p.serviceName ?? ''));
    add(t.fields.startTime ?? 'Start', formatInstant(p.startTime, zone, app.lang));
    add(t.fields.endTime ?? 'End', formatInstant(p.endTime, zone, app.lang));
    add(t.fields.partySize ?? 'People', String(p.partySize ?? ''));
    const price = p.price === null ? html`<span class="badge warn">${t.item.priceAwaiting}</span>` : money(app, p.price, p.priceCurrency);
    add(t.fields.price ?? 'Price', price);
    if (typeof p.customerStatedPrice === 'number') add(t.item.statedPrice, money(app, p.customerStatedPrice, p.priceCurrency));
    if (p.proposal) add(t.item.proposal, `${formatInstant(p.proposal.startTime, zone, app.lang)}${p.proposal.note ? ` · ${p.proposal.note}` : ''}`);
  }
  if (item.type === 'order') {
    const lines = (Array.isArray(p.lines) ? p.lines : []) as { name: string; quantity: number; price: number | null; sku: string | null; customerStatedPrice?: number }[];
    rows.push([
      t.item.lines,
      html`<div class="table-wrap"><table><thead><tr><th scope="col">${t.products.name}</th><th scope="col">${t.item.quantity}</th><th scope="col">${t.fields.price}</th></tr></thead><tbody>${lines.map(
        (line) =>
          html`<tr><td>${line.name}${line.sku ? html` <span class="muted small">${line.sku}</span>` : null}</td><td>${line.quantity}</td><td>${
            line.price === null ? html`<span class="badge warn">${t.item.priceAwaiting}</span>` : money(app, line.price, p.priceCurrency)
          }${typeof line.customerStatedPrice === 'number' ? html`<br><span class="muted small">${t.item.statedPrice}: ${money(app, line.customerStatedPrice, p.priceCurrency)}</span>` : null}</td></tr>`,
      )}</tbody></table></div>`,
    ]);
    add(t.item.total, p.totalPrice === null ? html`<span class="badge warn">${t.item.priceAwaiting}</span>` : money(app, p.totalPrice, p.priceCurrency));
    if (typeof p.customerStatedPrice === 'number') add(t.item.statedPrice, money(app, p.customerStatedPrice, p.priceCurrency));
    const payUrl = safeHref(p.paymentUrl);
    if (payUrl) add(t.fields.paymentUrl ?? 'Payment link', html`<a href="${payUrl}" rel="noopener noreferrer" target="_blank">${payUrl}</a>`);
    add(t.fields.paymentDueAt ?? 'Payment due', formatInstant(p.paymentDueAt, zone, app.lang));
  }
  if (item.type === 'quote_request') {
    add(t.fields.preferredTime ?? 'Preferred time', formatInstant(p.preferredTime, zone, app.lang));
    add(t.fields.budget ?? 'Budget', money(app, p.budget, app.profile.currency));
    if (p.quote) {
      add(t.item.quote, `${money(app, p.quote.totalPrice, p.quote.priceCurrency)} · ${t.item.validThrough} ${formatInstant(p.quote.validThrough, zone, app.lang)}`);
    }
  }
  if (item.type === 'refund') {
    add(t.fields.amount ?? 'Amount', money(app, p.amount, p.priceCurrency));
    add(t.fields.reason ?? 'Reason', String(p.reason ?? ''));
    if (typeof p.orderId === 'string') add(t.fields.orderId ?? 'Order', html`<a href="/app/items/${p.orderId}">${p.orderId}</a>`);
  }
  if (item.type === 'message') add(t.fields.subject ?? 'Subject', String(p.subject ?? ''));
  if (typeof p.description === 'string') add(t.fields.description ?? 'Description', html`<span class="pre">${p.description}</span>`);
  if (item.linkedItemId) add('→', html`<a href="/app/items/${item.linkedItemId}">${item.linkedItemId}</a>`);
  add(t.item.via, item.channel);
  return html`<dl class="facts">${rows.map(([label, value]) => html`<dt>${label}</dt><dd>${value}</dd>`)}</dl>`;
}

function renderCustomer(app: AppCall, item: OwnerItem): Html {
  const t = app.t;
  const c = item.customer;
  const persons = c.persons.map((person) => html`<li><code>${String(person.network ?? '')}</code> ${Object.entries(person)
    .filter(([key]) => key !== 'network')
    .map(([key, value]) => html`<span class="small">${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}</span> `)}</li>`);
  return html`<p>${t.item.match[c.match] ?? c.match}${c.possible ? html` <span class="muted">(${c.possible})</span>` : null}</p>
<p class="small">${t.item.history_(c.history.items, c.history.completed, c.history.noShows)}</p>
${persons.length > 0 ? html`<h3>${t.item.networks}</h3><ul>${persons}</ul>` : null}
${c.agent ? html`<h3>${t.item.agent}</h3><p class="small mono">${JSON.stringify(c.agent)}</p>` : null}`;
}

function renderFlags(app: AppCall, item: OwnerItem, csrf: string): Html {
  const t = app.t;
  const flag = postForm(
    `/app/items/${item.id}/flags`,
    csrf,
    app.formKey(),
    html`<input type="hidden" name="needsHuman" value="${item.needsHuman ? '0' : '1'}"><button type="submit">${item.needsHuman ? t.item.clearFlag : t.item.raiseFlag}</button>`,
  );
  const priority = postForm(
    `/app/items/${item.id}/flags`,
    csrf,
    app.formKey(),
    html`<label for="priority">${t.item.priority}</label><div class="row"><div><select id="priority" name="priority">${[0, 1, 2, 3].map(
      (level) => html`<option value="${level}"${attr('selected', item.priority === level ? 'selected' : null)}>${level}</option>`,
    )}</select></div><div><button type="submit">${t.setup.save}</button></div></div>`,
  );
  return html`<div class="actions">${flag}</div>${priority}`;
}

function renderConversation(app: AppCall, item: OwnerItem, nowMs: number): Html {
  void nowMs;
  if (item.conversation.length === 0) return html`<p class="muted">${app.t.item.noConversation}</p>`;
  return html`<ol class="conversation">${item.conversation.map(
    (entry) =>
      html`<li class="${entry.internal ? 'internal' : entry.from}"><p class="small muted">${entry.internal ? html`<strong>${app.t.item.internal}</strong> · ` : null}${
        entry.authorName ?? entry.authorKind
      } · <time datetime="${entry.createdAt}">${formatInstant(entry.createdAt, app.profile.timeZone, app.lang)}</time></p><p class="pre">${entry.text}</p></li>`,
  )}</ol>`;
}

function renderReceipts(app: AppCall, item: OwnerItem): Html {
  if (item.receipts.length === 0) return html`<p class="muted">${app.t.item.noReceipts}</p>`;
  return html`<ul>${item.receipts.map(
    (receipt) =>
      html`<li><strong>${receipt.kind}${receipt.outcome ? ` · ${receipt.outcome}` : ''}</strong> <span class="small muted">${receipt.event} · ${formatInstant(
        receipt.issued_at,
        app.profile.timeZone,
        app.lang,
      )}</span>${receipt.acknowledged ? html` <span class="badge accent">${app.t.item.acknowledged}</span>` : null}<br><code class="small">${receipt.receipt_id}</code></li>`,
  )}</ul>`;
}

/**
 * The history in plain words in the app's language: what happened and who did it ("Requested by the
 * customer's agent", "Confirmed by you · First owner key"), the time as the business writes it; no
 * event names, channels or ids. The name of the owner's key, an integration or a rule stays here,
 * in the owner's own history (customers see the business's name).
 */
function renderHistory(app: AppCall, item: OwnerItem, zone: string): Html {
  const words = app.t.history;
  return html`<ol class="events">${[...item.events].reverse().map((event) => {
    const what = event.event === 'create' ? words.created[item.type] ?? words.other : words.events[event.event] ?? words.other;
    const by = words.by[event.by.kind];
    const named = event.by.name && event.by.kind !== 'customer_agent' && event.by.kind !== 'customer_human' && event.by.kind !== 'system' ? event.by.name : null;
    return html`<li><time datetime="${event.timestamp}">${formatInstant(event.timestamp, zone, app.lang)}</time> · <strong>${what}</strong>${by ? ` ${by}` : ''}${
      named ? html` <span class="muted small">· ${named}</span>` : null
    }${event.reason ? html`<br><span class="small">${event.reason}</span>` : null}</li>`;
  })}</ol>`;
}

/** "This slot is full" and the next free times, each a one-step proposal (the booking's propose move). */
function renderFullSlot(app: AppCall, item: OwnerItem, free: readonly { start: string; end: string }[], csrf: string): Html {
  const t = app.t;
  const zone = app.profile.timeZone;
  const offers = free.map((slot) => {
    const fields = html`<input type="hidden" name="event" value="propose"><input type="hidden" name="expected_version" value="${item.version}"><input type="hidden" name="in.startTime" value="${toLocalInput(slot.start, zone)}">`;
    return html`<li>${postForm(`/app/items/${item.id}/move`, csrf, app.formKey(), html`${fields}<button type="submit">${t.slot.propose(formatInstant(slot.start, zone, app.lang))}</button>`)}</li>`;
  });
  return html`<div class="notice warn slot-full" role="status"><p><strong>${t.slot.full}</strong></p>${
    offers.length > 0 ? html`<p>${t.slot.offer}</p><ul>${offers}</ul>` : html`<p>${t.slot.none}</p>`
  }</div>`;
}
