/**
 * HTML built by tagged templates: every value put into `html`…`` is escaped unless it is already
 * HTML made here (an `Html`), so text a business or a customer wrote can never become markup. Pages
 * quote every attribute, so escaping quotes as well as <, > and & keeps values inside them.
 * Links to addresses someone else wrote go through `safeHref`, which keeps only http(s) URLs.
 */

/** A piece of HTML made by `html` (or declared trusted with `trustedHtml`); never made from raw input. */
export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escapeText(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c] as string);
}

/** What a template takes: text (escaped), HTML, numbers, lists of these; null, undefined and false print nothing. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeText(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i] as HtmlValue) + (strings[i + 1] ?? '');
  return new Html(out);
}

/** Markup this code wrote itself (a constant); never call it with text that came from a request or a store. */
export function trustedHtml(text: string): Html {
  return new Html(text);
}

export function joinHtml(parts: readonly HtmlValue[], separator: HtmlValue = ''): Html {
  const sep = render(separator);
  return new Html(parts.map(render).filter((part) => part !== '').join(sep));
}

/** An href for a URL someone else wrote: only http and https pass; anything else (javascript:, data:) becomes null. */
export function safeHref(url: string | null | undefined): string | null {
  if (typeof url !== 'string' || url.length > 2048) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/** A query string of the set values, in order, for links that keep a page's filters. */
export function queryString(params: Record<string, string | number | boolean | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '' || value === false) continue;
    search.set(name, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** ` name="value"` when the value is set, nothing otherwise (so no empty attribute such as aria-current=""). */
export function attr(name: string, value: string | number | null | undefined | false): Html {
  if (value === null || value === undefined || value === false) return new Html('');
  return new Html(` ${name}="${escapeText(String(value))}"`);
}
