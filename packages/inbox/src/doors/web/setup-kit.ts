/**
 * What every setup screen of the owner app shares: the sections and their navigation, the page frame
 * of a screen, and reading a submitted form's fields.
 */
import { attr, html, type Html } from '@svc/shared';
import type { AppCall } from './app-kit.js';
import { notificationTexts } from './messages-notifications.js';
import type { PageRenderer } from './app-routes.js';
import type { PageFrame } from './views/layout.js';

export const SETUP_SECTIONS = ['profile', 'services', 'products', 'hours', 'rules', 'settings', 'notifications', 'keys', 'webhooks', 'ai-apps', 'networks', 'feeds'] as const;
export type SetupSection = (typeof SETUP_SECTIONS)[number];

function sectionName(app: AppCall, section: SetupSection): string {
  const s = app.t.setup;
  const names: Record<SetupSection, string> = {
    profile: s.profile, services: s.services, products: s.products, hours: s.hours, rules: s.rules, settings: s.settings,
    keys: s.keys, webhooks: s.webhooks, 'ai-apps': s.aiApps, networks: s.networks, feeds: s.feeds,
    notifications: notificationTexts(app.lang).section,
  };
  return names[section];
}

export function setupNav(app: AppCall, current: SetupSection | null): Html {
  return html`<nav class="setup-nav" aria-label="${app.t.setup.title}"><ul>${SETUP_SECTIONS.map(
    (section) => html`<li><a href="/app/setup/${section}"${attr('aria-current', section === current ? 'page' : null)}>${sectionName(app, section)}</a></li>`,
  )}</ul></nav>`;
}

/** A setup screen: its title, the section navigation, a refusal if any, and its body. */
export function setupPage(app: AppCall, section: SetupSection, problem: Html | null, body: Html): PageFrame {
  const title = sectionName(app, section);
  return { title, section: 'setup', body: html`<h1>${title}</h1>${setupNav(app, section)}${problem}${body}` };
}

export type SetupRenderer = (app: AppCall, problem: Html | null, shown?: Html) => Promise<PageFrame>;

/**
 * Every setup screen reads the inbox's database, the clock to the minute and the request alone, so
 * it is kept and replayed (docs/web.md "Pages kept in memory"). Those drawn only from the tables the
 * owner's inbox and item pages show (kysely-inbox-store.ts SHOWN_ON_OWNER_PAGES) are kept while no
 * such table is written; the screens of keys, webhooks, AI apps, networks and feeds, which show
 * bookkeeping too (keys' last use, deliveries, grants, feed runs), while no table at all is.
 */
export const KEPT = { keep: 'owner_pages' } as const;
export const KEPT_UNTIL_ANY_WRITE = { keep: 'any_table' } as const;

/** The page renderer of a section, for routes.page and as the page an action falls back to. */
export function asPage(render: SetupRenderer): PageRenderer {
  return (app, _request, problem) => render(app, problem);
}

/** The value of a text field, trimmed; null when empty. */
export function textOf(form: URLSearchParams, name: string): string | null {
  const value = form.get(name);
  if (value === null) return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/** A whole number from a field; undefined when empty, NaN (refused by the operation's schema) when not a number. */
export function numberOf(form: URLSearchParams, name: string): number | undefined {
  const value = textOf(form, name);
  return value === null ? undefined : /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
}
