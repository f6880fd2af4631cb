/**
 * The valid next moves of an item as buttons and small forms, built from what get_item says the
 * owner may fire now (`transitions`, each with the JSON Schema of its input), and the way back:
 * the form's fields read into that input (money in the business's currency, times in its zone).
 */
import { Problem, attr, html, type Html } from '@svc/shared';
import type { AppCall } from '../app-kit.js';
import { dateTimeFields, localDateTimeOf, notDateTime } from './date-time-fields.js';
import { fromLocalInput, moneyInput, parseMoney, toLocalInput } from './format.js';
import { postForm } from './layout.js';
import type { ItemPayload } from './item-summary.js';

export interface Transition {
  event: string;
  label: string;
  input: JsonObjectSchema | null;
}

interface JsonObjectSchema {
  properties?: Record<string, JsonProperty>;
  required?: string[];
}

interface JsonProperty {
  type?: string | string[];
  format?: string;
  enum?: string[];
  description?: string;
  maxLength?: number;
  default?: unknown;
  items?: { properties?: Record<string, JsonProperty> };
}

/** Moves that end or refuse something: asked for with a reason, and confirmed by the script. */
const WEIGHTY = new Set(['decline', 'cancel_by_business', 'cancel', 'no_show', 'mark_spam', 'reject', 'charge_back', 'record_charge_back', 'payment_failed']);

function isMoney(property: JsonProperty): boolean {
  return property.type === 'integer' && /minor units/i.test(property.description ?? '');
}

export function moveLabel(app: AppCall, transition: Transition, words: Readonly<Record<string, string>> = {}): string {
  const event = transition.event.split('.').pop() ?? transition.event;
  return words[event] ?? app.t.moves[event] ?? transition.label;
}

export interface ItemForMoves {
  id: string;
  version: number;
  payload: ItemPayload;
}

/** `words`: labels of moves that depend on the business (an order's steps, by how it is handed over). */
export function renderMoves(app: AppCall, item: ItemForMoves, transitions: readonly Transition[], csrf: string, words: Readonly<Record<string, string>> = {}, nowMs = Date.now()): Html {
  if (transitions.length === 0) return html`<p class="muted">${app.t.item.noMoves}</p>`;
  const action = `/app/items/${item.id}/move`;
  const simple: Html[] = [];
  const detailed: Html[] = [];
  for (const transition of transitions) {
    const event = transition.event.split('.').pop() ?? transition.event;
    const properties = Object.entries(transition.input?.properties ?? {});
    const label = moveLabel(app, transition, words);
    const hidden = html`<input type="hidden" name="event" value="${transition.event}"><input type="hidden" name="expected_version" value="${item.version}">`;
    const weighty = WEIGHTY.has(event);
    const required = new Set(transition.input?.required ?? []);
    // A move that needs nothing is one button; its optional fields (a price, a note) wait behind "…".
    if (required.size === 0 && !weighty) {
      simple.push(postForm(action, csrf, app.formKey(), html`${hidden}<button type="submit" class="primary">${label}</button>`));
      if (properties.length === 0) continue;
    }
    const fields = properties.map(([name, property]) => renderField(app, item, transition.event, name, property, required.has(name), nowMs));
    const reasonId = `reason-${event}`;
    const form = postForm(
      action,
      csrf,
      app.formKey(),
      html`${hidden}${fields}<label for="${reasonId}">${app.t.item.reason}</label><input type="text" id="${reasonId}" name="reason" maxlength="2000">
<div class="actions"><button type="submit" class="${weighty ? 'danger' : 'primary'}">${label}</button></div>`,
      weighty ? html` data-confirm="${label}?"` : null,
    );
    detailed.push(html`<details><summary>${required.size === 0 && !weighty ? `${label}…` : label}</summary>${form}</details>`);
  }
  return html`<div class="actions">${simple}</div>${detailed}`;
}

function renderField(app: AppCall, item: ItemForMoves, event: string, name: string, property: JsonProperty, required: boolean, nowMs: number): Html {
  const id = `in-${event.replace(/\W/g, '-')}-${name}`;
  const label = app.t.fields[name] ?? name;
  const currency = String(item.payload.priceCurrency ?? app.profile.currency);
  const req = attr('required', required ? 'required' : null);
  if (name === 'linePrices' && Array.isArray(item.payload.lines)) {
    // One price per line the catalogue does not price: the business sets it.
    const lines = item.payload.lines
      .map((line, index) => ({ line, index }))
      .filter(({ line }) => line.price === null);
    return html`${lines.map(
      ({ line, index }) =>
        html`<label for="${id}-${index}">${app.t.item.linePrice(line.name)} (${currency})</label><input type="text" inputmode="decimal" id="${id}-${index}" name="line.${index}" required>`,
    )}`;
  }
  if (property.type === 'array' || property.type === 'object') return html``;
  if (isMoney(property)) {
    const current = name === 'price' ? moneyInput(item.payload.price, currency) : '';
    return html`<label for="${id}">${label} (${currency})</label><input type="text" inputmode="decimal" id="${id}" name="in.${name}" value="${current}"${req}>`;
  }
  if (property.format === 'date-time') {
    const current = name === 'startTime' ? toLocalInput(item.payload.startTime, app.profile.timeZone) : '';
    return dateTimeFields(app, id, `in.${name}`, label, current, required, { nowMs });
  }
  if (property.enum) {
    return html`<label for="${id}">${label}</label><select id="${id}" name="in.${name}">${property.enum.map(
      (value) => html`<option value="${value}"${attr('selected', property.default === value ? 'selected' : null)}>${value}</option>`,
    )}</select>`;
  }
  if (property.type === 'boolean') return html`<label class="inline"><input type="checkbox" id="${id}" name="in.${name}" value="1"> ${label}</label>`;
  if (property.type === 'integer' || property.type === 'number') {
    return html`<label for="${id}">${label}</label><input type="number" id="${id}" name="in.${name}"${req}>`;
  }
  const type = property.format === 'uri' ? 'url' : 'text';
  if ((property.maxLength ?? 0) > 300) {
    return html`<label for="${id}">${label}</label><textarea id="${id}" name="in.${name}" maxlength="${property.maxLength}"${req}></textarea>`;
  }
  return html`<label for="${id}">${label}</label><input type="${type}" id="${id}" name="in.${name}"${attr('maxlength', property.maxLength)}${req}>`;
}

/** Reads a move's form into its input, by the transition's schema; a value that cannot be read is refused naming its field. */
export function moveInputOf(app: AppCall, item: ItemForMoves, transition: Transition, form: URLSearchParams): Record<string, unknown> | undefined {
  const properties = transition.input?.properties ?? {};
  const input: Record<string, unknown> = {};
  const currency = String(item.payload.priceCurrency ?? app.profile.currency);
  const refuse = (name: string, message: string): never => {
    throw new Problem('invalid_input', `${app.t.fields[name] ?? name}: ${message}`, { fields: [{ path: `input.${name}`, problem: 'invalid', message }] });
  };
  for (const [name, property] of Object.entries(properties)) {
    if (name === 'linePrices') {
      const prices: { line: number; price: number }[] = [];
      for (const [field, value] of form) {
        const match = /^line\.(\d{1,3})$/.exec(field);
        if (!match || value.trim() === '') continue;
        const price = parseMoney(value, currency);
        if (price === null) refuse(name, `"${value}" is not an amount.`);
        prices.push({ line: Number(match[1]), price: price as number });
      }
      if (prices.length > 0) input.linePrices = prices;
      continue;
    }
    // A date and time comes as two selects (dateTimeFields), or whole (a one-step proposal's hidden field).
    const raw = (property.format === 'date-time' ? localDateTimeOf(form, `in.${name}`) : null) ?? form.get(`in.${name}`);
    if (property.type === 'boolean') {
      if (raw === '1') input[name] = true;
      continue;
    }
    if (raw === null || raw.trim() === '') continue;
    if (isMoney(property)) {
      const minor = parseMoney(raw, currency);
      if (minor === null) refuse(name, `"${raw}" is not an amount.`);
      input[name] = minor;
    } else if (property.format === 'date-time') {
      const iso = fromLocalInput(raw, app.profile.timeZone);
      if (iso === null) throw notDateTime(app, `input.${name}`, app.t.fields[name] ?? name, raw);
      input[name] = iso;
    } else if (property.type === 'integer' || property.type === 'number') {
      const value = Number(raw);
      if (!Number.isFinite(value)) refuse(name, `"${raw}" is not a number.`);
      input[name] = value;
    } else {
      input[name] = raw.trim();
    }
  }
  return Object.keys(input).length === 0 ? undefined : input;
}
