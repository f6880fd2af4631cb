/**
 * Setup: who may use the inbox and what it tells: API keys (made and shown once, revoked), webhooks
 * (secret shown once, test, rotate, pause, delete, deliveries and replays), AI apps (see and cut
 * off), networks and standing (get_networks), and product feeds.
 */
import { html, safeHref, type Html } from '@svc/shared';
import type { AppCall } from './app-kit.js';
import type { AppRoutes } from './app-routes.js';
import { KEPT_UNTIL_ANY_WRITE, asPage, numberOf, setupPage, textOf, type SetupRenderer } from './setup-kit.js';
import { ALL_QUARTERS, dateTimeFields, dateTimeOf, requiredDateTimeOf } from './views/date-time-fields.js';
import { formatInstant, toLocalInput } from './views/format.js';
import { notice, postForm } from './views/layout.js';

const PRESETS = ['automation', 'shop_sync', 'calendar_sync', 'read_only'] as const;
/** A new key's expiry is picked from today to a year ahead (or none). */
const EXPIRY_DAYS = 366;
/** How far back an endpoint's missed events can be sent again: deliveries are kept 30 days (app.ts DELIVERY_RETENTION_MS), so older events cannot be told apart from missed ones. */
const REPLAY_DAYS = 30;

interface KeyView {
  id: string;
  name: string;
  kind: string;
  preset: string | null;
  scopes: string[];
  status: string;
  hint: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  calls_outside_scopes: { operation: string; scope: string; calls: number }[];
}

function when(app: AppCall, iso: string | null | undefined): string {
  return iso ? formatInstant(iso, app.profile.timeZone, app.lang) : '—';
}

/** A secret shown once, with a copy button the script makes work. */
function shownOnce(label: string, value: string, copy: string): Html {
  return html`<div class="secret" role="status"><strong>${label}</strong><output data-copy-source>${value}</output><button type="button" data-copy hidden>${copy}</button></div>`;
}

/** `now`: the clock, for the days an expiry is picked from. */
const keysPage = (now: () => number): SetupRenderer => async (app, problem, shown) => {
  const { items } = await app.call<{ items: KeyView[] }>('list_api_keys', { limit: 100 });
  const t = app.t.keys;
  const rows = items.map(
    (key) => html`<tr><td>${key.name}<br><code class="small">${key.hint}</code></td><td>${t.kind[key.kind] ?? key.kind}${key.preset ? html`<br><span class="small">${t.presets[key.preset] ?? key.preset}</span>` : null}</td>
<td>${key.status === 'active' ? html`<span class="badge accent">${app.t.setup.active}</span>` : html`<span class="badge">${key.status === 'revoked' ? t.revoked : key.status}</span>`}</td>
<td>${key.last_used_at ? when(app, key.last_used_at) : t.never}</td>
<td>${key.calls_outside_scopes.map((miss) => html`<span class="small"><code>${miss.operation}</code> (${miss.scope}) × ${miss.calls}</span><br>`)}</td>
<td>${key.status === 'active' && key.kind === 'integration'
      ? postForm('/app/setup/keys/revoke', app.session.csrfToken, app.formKey(), html`<input type="hidden" name="id" value="${key.id}"><button type="submit" class="danger">${t.revoke}</button>`, html` data-confirm="${t.confirmRevoke}"`)
      : null}</td></tr>`,
  );
  const create = postForm(
    '/app/setup/keys',
    app.session.csrfToken,
    app.formKey(),
    html`<div class="row"><div><label for="k-name">${t.name}</label><input type="text" id="k-name" name="name" required maxlength="100"></div>
<div><label for="k-preset">${t.preset}</label><select id="k-preset" name="preset">${PRESETS.map((preset) => html`<option value="${preset}">${t.presets[preset]}</option>`)}</select></div>
</div>
${dateTimeFields(app, 'k-expires', 'expires', t.expires, '', false, { nowMs: now(), lastDay: EXPIRY_DAYS, times: ALL_QUARTERS, defaultTime: '00:00' })}
<div class="actions"><button type="submit" class="primary">${t.create}</button></div>`,
  );
  const body = html`<p>${t.intro}</p>${shown ?? null}<section class="card" aria-labelledby="new-key"><h2 id="new-key">${t.create}</h2>${create}</section>
<div class="card table-wrap"><table><thead><tr><th scope="col">${t.name}</th><th scope="col">${t.preset}</th><th scope="col">${app.t.webhooks.status}</th><th scope="col">${t.lastUse}</th><th scope="col">${t.outside}</th><th scope="col"></th></tr></thead><tbody>${rows}</tbody></table></div>`;
  return setupPage(app, 'keys', problem, body);
};

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  payload_style: string;
  active: boolean;
  disabled_at: string | null;
  last_error: string | null;
  previous_secret_expires_at: string | null;
}

interface Delivery {
  id: string;
  event_type: string;
  status: string;
  attempts: number;
  response_code: number | null;
  last_error: string | null;
  created_at: string;
}

/** `now`: the clock, for the days a replay is picked from. */
const webhooksPage = (now: () => number): SetupRenderer => async (app, problem, shown) => {
  const { items } = await app.call<{ items: Endpoint[] }>('list_webhooks');
  const t = app.t.webhooks;
  const csrf = app.session.csrfToken;
  // What an endpoint missed is replayed from yesterday at this hour unless the owner picks another time.
  const sinceDefault = `${toLocalInput(new Date(now() - 86_400_000).toISOString(), app.profile.timeZone).slice(0, 14)}00`;
  const endpoints = await Promise.all(
    items.map(async (endpoint) => {
      const { items: deliveries } = await app.call<{ items: Delivery[] }>('list_webhook_deliveries', { id: endpoint.id, limit: 10 });
      const hidden = html`<input type="hidden" name="id" value="${endpoint.id}">`;
      const deliveryRows = deliveries.map(
        (delivery) => html`<tr><td><code>${delivery.event_type}</code></td><td>${delivery.status}</td><td>${delivery.attempts}</td><td>${delivery.response_code ?? ''}</td><td>${when(app, delivery.created_at)}</td>
<td>${postForm('/app/setup/webhooks/replay', csrf, app.formKey(), html`<input type="hidden" name="delivery" value="${delivery.id}"><button type="submit">${t.replay}</button>`)}</td></tr>`,
      );
      return html`<section class="card" aria-label="${endpoint.url}"><h2 class="mono">${endpoint.url}</h2>
<p>${endpoint.active ? html`<span class="badge accent">${app.t.setup.active}</span>` : html`<span class="badge warn">${t.inactive}</span>`} <span class="small">${endpoint.events.join(', ')} · ${endpoint.payload_style}</span></p>
${endpoint.last_error ? html`<p class="small">${t.lastError}: ${endpoint.last_error}</p>` : null}
<div class="actions">
${postForm('/app/setup/webhooks/test', csrf, app.formKey(), html`${hidden}<button type="submit">${t.test}</button>`)}
${postForm('/app/setup/webhooks/rotate', csrf, app.formKey(), html`${hidden}<button type="submit">${t.rotate}</button>`)}
${postForm('/app/setup/webhooks/active', csrf, app.formKey(), html`${hidden}<input type="hidden" name="active" value="${endpoint.active ? '0' : '1'}"><button type="submit">${endpoint.active ? t.pause : t.resume}</button>`)}
${postForm('/app/setup/webhooks/delete', csrf, app.formKey(), html`${hidden}<button type="submit" class="danger">${t.delete}</button>`, html` data-confirm="${t.confirmDelete}"`)}
</div>
<details><summary>${t.deliveries} (${deliveries.length})</summary>
<div class="table-wrap"><table><thead><tr><th scope="col">Event</th><th scope="col">${t.status}</th><th scope="col">${t.attempts}</th><th scope="col">${t.code}</th><th scope="col"></th><th scope="col"></th></tr></thead><tbody>${deliveryRows}</tbody></table></div>
${postForm('/app/setup/webhooks/replay-missing', csrf, app.formKey(), html`${hidden}${dateTimeFields(app, `since-${endpoint.id}`, 'since', t.replayMissing, sinceDefault, true, { nowMs: now(), firstDay: -REPLAY_DAYS, lastDay: 0, times: ALL_QUARTERS })}<div class="actions"><button type="submit">${t.replay}</button></div>`)}
</details></section>`;
    }),
  );
  const create = postForm(
    '/app/setup/webhooks',
    csrf,
    app.formKey(),
    html`<label for="w-url">${t.url}</label><input type="url" id="w-url" name="url" required placeholder="https://">
<label for="w-events">${t.events}</label><input type="text" id="w-events" name="events" value="*">
<fieldset><legend>${t.style}</legend><label class="inline"><input type="radio" name="payload_style" value="thin" checked> ${t.thin}</label><label class="inline"><input type="radio" name="payload_style" value="full"> ${t.full}</label></fieldset>
<div class="actions"><button type="submit" class="primary">${t.create}</button></div>`,
  );
  const body = html`<p>${t.intro}</p>${shown ?? null}${endpoints}<section class="card" aria-labelledby="new-webhook"><h2 id="new-webhook">${t.create}</h2>${create}</section>`;
  return setupPage(app, 'webhooks', problem, body);
};

interface AiApp {
  id: string;
  name: string;
  redirect_hosts: string[];
  scopes: string[];
  active: boolean;
  created_at: string;
  last_used_at: string | null;
  calls_outside_scopes: { operation: string; scope: string; refused: number }[];
}

const renderAiApps: SetupRenderer = async (app, problem) => {
  const { items } = await app.call<{ items: AiApp[] }>('list_ai_apps', { limit: 100 });
  const t = app.t.aiApps;
  const list = items.map(
    (ai) => html`<section class="card" aria-label="${ai.name}"><h2>${ai.name} <span class="muted small">(${ai.redirect_hosts.join(', ')})</span></h2>
<dl class="facts"><dt>${t.scopes}</dt><dd>${ai.scopes.map((scope) => html`<code>${scope}</code> `)}</dd><dt>${t.connected}</dt><dd>${when(app, ai.created_at)}</dd><dt>${t.lastUse}</dt><dd>${when(app, ai.last_used_at)}</dd>
${ai.calls_outside_scopes.length > 0 ? html`<dt>${t.outside}</dt><dd>${ai.calls_outside_scopes.map((miss) => html`<code>${miss.operation}</code> (${miss.scope}) × ${miss.refused} `)}</dd>` : null}</dl>
<div class="actions">${postForm('/app/setup/ai-apps/revoke', app.session.csrfToken, app.formKey(), html`<input type="hidden" name="id" value="${ai.id}"><button type="submit" class="danger">${t.cutOff}</button>`, html` data-confirm="${t.confirm}"`)}</div></section>`,
  );
  return setupPage(app, 'ai-apps', problem, html`<p>${t.intro}</p>${list.length > 0 ? list : html`<p class="card muted">${app.t.setup.none}</p>`}`);
};

interface NetworkEntry {
  origin: string;
  enabled: boolean;
  verification: string | null;
  listed: boolean | null;
  last_ping_at: string | null;
  last_read_at: string | null;
  up_to_date: boolean | null;
  change_sent_at: string | null;
  last_error: string | null;
  standing: Record<string, unknown> | null;
  receipts: Record<string, unknown> | null;
  log?: { checked_at: string | null; logged: number; missing: number; first_missing: { since: string } | null; problem: { message: string; at: string } | null };
  not_known?: Record<string, string>;
}

/** What the inbox's hourly check of the network's public record found (docs/verifiable-order.md): an alarm first. */
function logFacts(app: Parameters<SetupRenderer>[0], log: NetworkEntry['log']) {
  const t = app.t.networks;
  if (!log || log.checked_at === null) return html`${t.notKnown}`;
  const parts = [html`${log.logged} ${t.logFound}`];
  if (log.missing > 0 && log.first_missing) parts.push(html`<strong>${log.missing} ${t.logMissing} ${when(app, log.first_missing.since)}</strong>`);
  if (log.problem) parts.push(html`<strong>${log.problem.message}</strong>`);
  return html`${parts.map((p, i) => (i === 0 ? p : html`; ${p}`))} (${t.logChecked} ${when(app, log.checked_at)})`;
}

const renderNetworks: SetupRenderer = async (app, problem) => {
  const { networks } = await app.call<{ networks: NetworkEntry[] }>('get_networks');
  const t = app.t.networks;
  const list = networks.map((network) => {
    const link = safeHref(network.origin);
    return html`<section class="card" aria-label="${network.origin}"><h2 class="mono">${link ? html`<a href="${link}" rel="noopener noreferrer">${network.origin}</a>` : network.origin}</h2>
<dl class="facts"><dt>${app.t.webhooks.status}</dt><dd>${network.enabled ? t.on : t.off}</dd><dt>${t.verified}</dt><dd>${network.verification ?? t.notKnown}</dd><dt>${t.listed}</dt><dd>${
      network.listed === null ? t.notKnown : network.listed ? app.t.setup.yes : app.t.setup.no
    }</dd><dt>${t.lastPing}</dt><dd>${when(app, network.last_ping_at)}</dd><dt>${t.lastRead}</dt><dd>${when(app, network.last_read_at)}${
      network.up_to_date === false ? html` <span class="badge warn">${t.changeWaiting}</span>` : network.up_to_date ? html` <span class="badge accent">${t.upToDate}</span>` : null
    }</dd>${network.change_sent_at ? html`<dt>${t.changeSent}</dt><dd>${when(app, network.change_sent_at)}</dd>` : null}${network.last_error ? html`<dt>${t.lastError}</dt><dd>${network.last_error}</dd>` : null}
<dt>${t.standing}</dt><dd>${network.standing ? html`<code>${JSON.stringify(network.standing)}</code>` : network.not_known?.standing ?? t.notKnown}</dd>
<dt>${t.receipts}</dt><dd>${network.receipts ? html`<code>${JSON.stringify(network.receipts)}</code>` : network.not_known?.receipts ?? t.notKnown}</dd>
<dt>${t.log}</dt><dd>${logFacts(app, network.log)}</dd></dl>
<div class="actions">${postForm('/app/setup/networks', app.session.csrfToken, app.formKey(), html`<input type="hidden" name="origin" value="${network.origin}"><input type="hidden" name="enabled" value="${network.enabled ? '0' : '1'}"><button type="submit">${network.enabled ? t.turnOff : t.turnOn}</button>`)}</div></section>`;
  });
  return setupPage(app, 'networks', problem, html`<p>${t.intro}</p>${list.length > 0 ? list : html`<p class="card muted">${app.t.setup.none}</p>`}`);
};

interface Feed {
  id: string;
  name: string;
  url: string;
  status: string;
  lastSuccessAt: string | null;
  lastError: { message: string; at: string } | null;
  products: { active: number; archived: number };
}

const renderFeeds: SetupRenderer = async (app, problem) => {
  const { items } = await app.call<{ items: Feed[] }>('list_feeds', { limit: 100 });
  const t = app.t.feeds;
  const csrf = app.session.csrfToken;
  const list = items.map(
    (feed) => html`<section class="card" aria-label="${feed.name}"><h2>${feed.name}</h2><p class="mono small">${feed.url}</p>
<dl class="facts"><dt>${t.status}</dt><dd>${feed.status}</dd><dt>${t.lastRun}</dt><dd>${when(app, feed.lastSuccessAt)}</dd><dt>${t.products}</dt><dd>${feed.products.active}</dd>${
      feed.lastError ? html`<dt>${app.t.webhooks.lastError}</dt><dd>${feed.lastError.message}</dd>` : null
    }</dl>
<div class="actions">${postForm('/app/setup/feeds/import', csrf, app.formKey(), html`<input type="hidden" name="id" value="${feed.id}"><button type="submit">${t.importNow}</button>`)}
${postForm('/app/setup/feeds/remove', csrf, app.formKey(), html`<input type="hidden" name="id" value="${feed.id}"><button type="submit" class="danger">${t.remove}</button>`, html` data-confirm="${t.remove}?"`)}</div></section>`,
  );
  const add = postForm('/app/setup/feeds', csrf, app.formKey(), html`<label for="f-url">${t.url}</label><input type="url" id="f-url" name="url" required placeholder="https://"><div class="actions"><button type="submit" class="primary">${t.add}</button></div>`);
  return setupPage(app, 'feeds', problem, html`<p>${t.intro}</p>${list}<section class="card" aria-labelledby="new-feed"><h2 id="new-feed">${t.add}</h2>${add}</section>`);
};

export function installAccessPages(routes: AppRoutes): void {
  const now = () => routes.env.deps.clock.now();
  const renderKeys = keysPage(now);
  const renderWebhooks = webhooksPage(now);
  const key = (form: URLSearchParams) => form.get('idempotency_key');
  routes.page('/app/setup/keys', asPage(renderKeys), KEPT_UNTIL_ANY_WRITE);
  routes.action(
    '/app/setup/keys',
    async (app, form) => {
      const expires = dateTimeOf(app, form, 'expires', app.t.keys.expires);
      const made = await app.call<{ key: string }>('create_api_key', {
        name: textOf(form, 'name') ?? '',
        preset: textOf(form, 'preset') ?? '',
        expires_at: expires ?? undefined,
        idempotency_key: key(form),
      });
      // The key is in this answer only: the page is rendered here, never behind a redirect.
      return renderKeys(app, notice('ok', app.t.done), shownOnce(app.t.keys.shownOnce, made.key, app.t.keys.copy));
    },
    asPage(renderKeys),
  );
  routes.action(
    '/app/setup/keys/revoke',
    async (app, form) => {
      await app.call('revoke_api_key', { id: textOf(form, 'id') ?? '', idempotency_key: key(form) });
      return '/app/setup/keys?done=saved';
    },
    asPage(renderKeys),
  );

  routes.page('/app/setup/webhooks', asPage(renderWebhooks), KEPT_UNTIL_ANY_WRITE);
  routes.action(
    '/app/setup/webhooks',
    async (app, form) => {
      const events = (textOf(form, 'events') ?? '*').split(',').map((e) => e.trim()).filter(Boolean);
      const made = await app.call<{ secret: string }>('create_webhook', { url: textOf(form, 'url') ?? '', events, payload_style: textOf(form, 'payload_style') ?? 'thin', idempotency_key: key(form) });
      return renderWebhooks(app, notice('ok', app.t.done), shownOnce(app.t.webhooks.secretOnce, made.secret, app.t.keys.copy));
    },
    asPage(renderWebhooks),
  );
  routes.action(
    '/app/setup/webhooks/rotate',
    async (app, form) => {
      const rotated = await app.call<{ secret: string }>('rotate_webhook_secret', { id: textOf(form, 'id') ?? '', idempotency_key: key(form) });
      return renderWebhooks(app, notice('ok', app.t.done), shownOnce(app.t.webhooks.secretOnce, rotated.secret, app.t.keys.copy));
    },
    asPage(renderWebhooks),
  );
  routes.action(
    '/app/setup/webhooks/test',
    async (app, form) => {
      const delivery = await app.call<{ status: string; response_code: number | null; last_error: string | null }>('send_test_event', { id: textOf(form, 'id') ?? '' });
      const answered = delivery.response_code === null ? (delivery.last_error ?? delivery.status) : String(delivery.response_code);
      return renderWebhooks(app, notice(delivery.status === 'succeeded' ? 'ok' : 'warn', app.t.webhooks.testAnswered(answered)));
    },
    asPage(renderWebhooks),
  );
  routes.action(
    '/app/setup/webhooks/active',
    async (app, form) => {
      await app.call('update_webhook', { id: textOf(form, 'id') ?? '', active: form.get('active') === '1', idempotency_key: key(form) });
      return '/app/setup/webhooks?done=saved';
    },
    asPage(renderWebhooks),
  );
  routes.action(
    '/app/setup/webhooks/delete',
    async (app, form) => {
      await app.call('delete_webhook', { id: textOf(form, 'id') ?? '', idempotency_key: key(form) });
      return '/app/setup/webhooks?done=saved';
    },
    asPage(renderWebhooks),
  );
  routes.action(
    '/app/setup/webhooks/replay',
    async (app, form) => {
      await app.call('replay_webhook_delivery', { id: textOf(form, 'delivery') ?? '', idempotency_key: key(form) });
      return renderWebhooks(app, notice('ok', app.t.webhooks.queued));
    },
    asPage(renderWebhooks),
  );
  routes.action(
    '/app/setup/webhooks/replay-missing',
    async (app, form) => {
      const since = requiredDateTimeOf(app, form, 'since', app.t.webhooks.replayMissing);
      const answer = await app.call<{ queued: number }>('replay_missing_webhook_deliveries', {
        id: textOf(form, 'id') ?? '',
        since,
        idempotency_key: key(form),
      });
      return renderWebhooks(app, notice('ok', `${app.t.webhooks.queued} (${answer.queued})`));
    },
    asPage(renderWebhooks),
  );

  routes.page('/app/setup/ai-apps', asPage(renderAiApps), KEPT_UNTIL_ANY_WRITE);
  routes.action(
    '/app/setup/ai-apps/revoke',
    async (app, form) => {
      await app.call('revoke_ai_app', { id: textOf(form, 'id') ?? '', idempotency_key: key(form) });
      return '/app/setup/ai-apps?done=saved';
    },
    asPage(renderAiApps),
  );

  routes.page('/app/setup/networks', asPage(renderNetworks), KEPT_UNTIL_ANY_WRITE);
  routes.action(
    '/app/setup/networks',
    async (app, form) => {
      const origin = textOf(form, 'origin') ?? '';
      await app.call('update_settings', { settings: { networks: { [origin]: { enabled: form.get('enabled') === '1' } } }, idempotency_key: key(form) });
      return '/app/setup/networks?done=saved';
    },
    asPage(renderNetworks),
  );

  routes.page('/app/setup/feeds', asPage(renderFeeds), KEPT_UNTIL_ANY_WRITE);
  routes.action(
    '/app/setup/feeds',
    async (app, form) => {
      await app.call('add_feed', { url: textOf(form, 'url') ?? '', everyHours: numberOf(form, 'everyHours'), idempotency_key: key(form) });
      return '/app/setup/feeds?done=saved';
    },
    asPage(renderFeeds),
  );
  routes.action(
    '/app/setup/feeds/import',
    async (app, form) => {
      await app.call('import_feed_now', { id: textOf(form, 'id') ?? '', idempotency_key: key(form) });
      return '/app/setup/feeds?done=saved';
    },
    asPage(renderFeeds),
  );
  routes.action(
    '/app/setup/feeds/remove',
    async (app, form) => {
      await app.call('remove_feed', { id: textOf(form, 'id') ?? '', idempotency_key: key(form) });
      return '/app/setup/feeds?done=saved';
    },
    asPage(renderFeeds),
  );
}
