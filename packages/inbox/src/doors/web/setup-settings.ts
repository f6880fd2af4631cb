/**
 * Setup: the settings document (update_settings; the `security` section can change only here, inbox
 * spec §5) and the owner's rules (upsert_rule, delete_rule, and test_rule as a dry run on an item).
 */
import { attr, html, Problem, type Html } from '@svc/shared';
import type { AppCall } from './app-kit.js';
import type { AppRoutes } from './app-routes.js';
import { KEPT, asPage, numberOf, setupPage, textOf, type SetupRenderer } from './setup-kit.js';
import { postForm } from './views/layout.js';
import { stateLabel, typeLabel, whoOf, type ListedItem } from './views/item-summary.js';

interface Settings {
  version: number;
  settings: {
    email: { inboundSecret: string | null };
    networks: Record<string, { enabled: boolean }>;
    security: { aiMayCreateKeys: boolean; enforceScopes: boolean };
    booking: { cancellationWindowMinutes: number; lateCancellation: string; autoCompleteHours: number };
    orders: { payDays: number; handover?: 'collection' | 'delivery' | 'both' };
    quotes: { defaultValidityHours: number };
  };
  redacted: string[];
}

function checkbox(name: string, label: string, checked: boolean): Html {
  return html`<label class="inline"><input type="checkbox" name="${name}" value="1"${attr('checked', checked ? 'checked' : null)}> ${label}</label>`;
}

function handoverOf(value: string | null): 'collection' | 'delivery' | 'both' | undefined {
  return value === 'collection' || value === 'delivery' || value === 'both' ? value : undefined;
}

function numberField(id: string, name: string, label: string, value: number): Html {
  return html`<div><label for="${id}">${label}</label><input type="number" id="${id}" name="${name}" value="${value}" min="0"></div>`;
}

const renderSettings: SetupRenderer = async (app, problem) => {
  const { version, settings, redacted } = await app.call<Settings>('get_settings');
  const t = app.t.settings;
  const secretSet = redacted.includes('email.inboundSecret');
  const networks = Object.entries(settings.networks);
  const body = postForm(
    '/app/setup/settings',
    app.session.csrfToken,
    app.formKey(),
    html`<input type="hidden" name="expected_version" value="${version}">
<fieldset class="card"><legend><strong>${t.security}</strong></legend>
<input type="hidden" name="security" value="1">
${checkbox('enforceScopes', t.enforceScopes, settings.security.enforceScopes)}<br>
${checkbox('aiMayCreateKeys', t.aiMayCreateKeys, settings.security.aiMayCreateKeys)}
</fieldset>
<fieldset class="card"><legend><strong>${t.booking}</strong></legend><div class="row">
${numberField('st-window', 'cancellationWindowMinutes', t.cancellationWindow, settings.booking.cancellationWindowMinutes)}
<div><label for="st-late">${t.lateCancellation}</label><select id="st-late" name="lateCancellation">
<option value="record"${attr('selected', settings.booking.lateCancellation === 'record' ? 'selected' : null)}>${t.lateRecord}</option>
<option value="refuse"${attr('selected', settings.booking.lateCancellation === 'refuse' ? 'selected' : null)}>${t.lateRefuse}</option></select></div>
${numberField('st-complete', 'autoCompleteHours', t.autoComplete, settings.booking.autoCompleteHours)}
</div></fieldset>
<fieldset class="card"><legend><strong>${t.orders} · ${t.quotes}</strong></legend><div class="row">
${numberField('st-pay', 'payDays', t.payDays, settings.orders.payDays)}
<div><label for="st-handover">${t.handover}</label><select id="st-handover" name="handover">${(['both', 'collection', 'delivery'] as const).map(
    (way) => html`<option value="${way}"${attr('selected', (settings.orders.handover ?? 'both') === way ? 'selected' : null)}>${t.handovers[way]}</option>`,
  )}</select></div>
${numberField('st-validity', 'defaultValidityHours', t.quoteValidity, settings.quotes.defaultValidityHours)}
</div></fieldset>
<fieldset class="card"><legend><strong>${t.email}</strong></legend>
<label for="st-secret">${t.inboundSecret} <span class="muted small">(${secretSet ? t.secretSet : t.secretNotSet})</span></label>
<input type="password" id="st-secret" name="inboundSecret" autocomplete="off" aria-describedby="st-secret-help"><p class="help" id="st-secret-help">${t.secretHelp}</p>
</fieldset>
<fieldset class="card"><legend><strong>${t.networks}</strong></legend>
${networks.map(([origin, entry], index) => html`<input type="hidden" name="network.${index}" value="${origin}">${checkbox(`network.${index}.enabled`, `${t.networkEnabled}: ${origin}`, entry.enabled)}<br>`)}
<label for="st-network">${t.addNetwork}</label><input type="url" id="st-network" name="newNetwork" placeholder="https://">
</fieldset>
<div class="actions"><button type="submit" class="primary">${app.t.setup.save}</button></div>`,
  );
  return setupPage(app, 'settings', problem, body);
};

interface Rule {
  id: string;
  name: string;
  enabled: boolean;
  when: { event: string; afterHours?: number };
  if: unknown[];
  then: unknown;
}

const EXAMPLE_RULE = { name: 'Confirm priced bookings within opening hours', enabled: true, when: { event: 'booking.create' }, if: [{ fact: 'fully_priced', is: true }, { fact: 'within_opening_hours', is: true }], then: { do: 'transition', event: 'confirm' } };

function renderRules(app: AppCall, problem: Html | null, tried: Html | null, draft: string | null): Promise<ReturnType<typeof setupPage>> {
  return (async () => {
    const t = app.t.rules;
    const [{ items: rules }, { items: recent }] = await Promise.all([
      app.call<{ items: Rule[] }>('list_rules', { limit: 100 }),
      app.call<{ items: ListedItem[] }>('list_items', { open_only: false, limit: 20 }),
    ]);
    const list = rules.map(
      (rule) => html`<li class="card"><strong>${rule.name}</strong> <span class="badge${rule.enabled ? ' accent' : ''}">${rule.enabled ? t.enabled : t.disabled}</span>
<p class="small">${t.trigger}: <code>${rule.when.event}</code>${rule.when.afterHours ? ` + ${rule.when.afterHours} h` : ''}</p>
<details><summary>JSON</summary><pre class="mono small pre">${JSON.stringify({ id: rule.id, name: rule.name, enabled: rule.enabled, when: rule.when, if: rule.if, then: rule.then }, null, 2)}</pre></details>
<div class="actions">${postForm('/app/setup/rules/delete', app.session.csrfToken, app.formKey(), html`<input type="hidden" name="id" value="${rule.id}"><button type="submit" class="danger">${t.delete}</button>`, html` data-confirm="${t.delete}?"`)}</div></li>`,
    );
    const editor = postForm(
      '/app/setup/rules',
      app.session.csrfToken,
      app.formKey(),
      html`<label for="rule-json">${t.definition}</label>
<textarea id="rule-json" name="rule" rows="12" class="mono" required>${draft ?? JSON.stringify(EXAMPLE_RULE, null, 2)}</textarea>
<label for="rule-item">${app.t.nav.inbox}</label><select id="rule-item" name="item_id"><option value="">—</option>${recent.map(
        (item) => html`<option value="${item.id}">${typeLabel(app.t, item.type)} · ${whoOf(item)} · ${stateLabel(app.t, item.state)}</option>`,
      )}</select>
<div class="actions"><button type="submit" name="intent" value="test">${t.dryRun}</button><button type="submit" name="intent" value="save" class="primary">${t.save}</button></div>`,
    );
    const body = html`<p>${t.intro}</p>${tried}<section class="card" aria-label="${t.definition}">${editor}</section><ul class="plain">${list}</ul>`;
    return setupPage(app, 'rules', problem, body);
  })();
}

export function installSettingsPages(routes: AppRoutes): void {
  routes.page('/app/setup/settings', asPage(renderSettings), KEPT);
  routes.action(
    '/app/setup/settings',
    async (app, form) => {
      const networks: Record<string, { enabled: boolean }> = {};
      for (let index = 0; index < 20; index++) {
        const origin = textOf(form, `network.${index}`);
        if (origin === null) break;
        networks[origin] = { enabled: form.get(`network.${index}.enabled`) === '1' };
      }
      const added = textOf(form, 'newNetwork');
      if (added !== null) networks[added] = { enabled: true };
      const secret = textOf(form, 'inboundSecret');
      const late = textOf(form, 'lateCancellation');
      // JSON drops the fields left empty, so their stored values stay as they are.
      const settings = JSON.parse(JSON.stringify({
          ...(form.get('security') === '1' ? { security: { enforceScopes: form.get('enforceScopes') === '1', aiMayCreateKeys: form.get('aiMayCreateKeys') === '1' } } : {}),
          booking: {
            cancellationWindowMinutes: numberOf(form, 'cancellationWindowMinutes'),
            lateCancellation: late ?? undefined,
            autoCompleteHours: numberOf(form, 'autoCompleteHours'),
          },
          orders: { payDays: numberOf(form, 'payDays'), handover: handoverOf(textOf(form, 'handover')) },
          quotes: { defaultValidityHours: numberOf(form, 'defaultValidityHours') },
          ...(secret !== null ? { email: { inboundSecret: secret } } : {}),
          ...(Object.keys(networks).length > 0 ? { networks } : {}),
      })) as Record<string, unknown>;
      await app.call('update_settings', {
        settings,
        expected_version: numberOf(form, 'expected_version'),
        idempotency_key: form.get('idempotency_key'),
      });
      return '/app/setup/settings?done=saved';
    },
    asPage(renderSettings),
  );

  routes.page('/app/setup/rules', (app, _request, problem) => renderRules(app, problem, null, null), KEPT);
  routes.action(
    '/app/setup/rules',
    async (app, form) => {
      const text = form.get('rule') ?? '';
      let rule: unknown;
      try {
        rule = JSON.parse(text);
      } catch {
        throw new Problem('invalid_input', 'The rule is not JSON.', { fields: [{ path: 'rule', problem: 'invalid', message: 'Not JSON.' }] });
      }
      if (form.get('intent') === 'test') {
        const itemId = textOf(form, 'item_id');
        if (itemId === null) throw new Problem('invalid_input', 'Pick an item to try the rule on.', { fields: [{ path: 'item_id', problem: 'missing', message: 'Pick an item.' }] });
        const result = await app.call<{ outcome: string; detail: string; conditions: { fact: string; holds: boolean; detail: string }[] }>('test_rule', { item_id: itemId, rule });
        const t = app.t.rules;
        const tried = html`<section class="card notice ${result.outcome === 'would_act' ? 'ok' : 'warn'}" role="status" aria-labelledby="tried"><h2 id="tried">${t.result}: ${
          result.outcome === 'would_act' ? t.wouldFire : t.wouldNot
        }</h2><p>${result.detail}</p><ul>${result.conditions.map((c) => html`<li>${c.holds ? '✓' : '✗'} <code>${c.fact}</code>: ${c.detail}</li>`)}</ul></section>`;
        return renderRules(app, null, tried, text);
      }
      await app.call('upsert_rule', { rule, idempotency_key: form.get('idempotency_key') });
      return '/app/setup/rules?done=saved';
    },
    (app, request, problem) => renderRules(app, problem, null, request.body instanceof URLSearchParams ? request.body.get('rule') : null),
  );
  routes.action(
    '/app/setup/rules/delete',
    async (app, form) => {
      await app.call('delete_rule', { id: textOf(form, 'id') ?? '', idempotency_key: form.get('idempotency_key') });
      return '/app/setup/rules?done=saved';
    },
    (app, _request, problem) => renderRules(app, problem, null, null),
  );
}
