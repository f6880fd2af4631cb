/**
 * Setup in the owner app: profile, services, products, opening hours and closures, rules (with a dry
 * run), settings (the security section only here), API keys, webhooks, AI apps, networks and product
 * feeds. Each screen reads and writes through the operations REST and MCP use (docs/web.md).
 */
import { html } from '@svc/shared';
import type { AppRoutes } from './app-routes.js';
import { installAccessPages } from './setup-access.js';
import { installCataloguePages } from './setup-catalogue.js';
import { installHoursPages } from './setup-hours.js';
import { KEPT, setupNav } from './setup-kit.js';
import { installSettingsPages } from './setup-settings.js';
import { installNotificationPages } from './setup-notifications.js';

export function installSetupPages(routes: AppRoutes): void {
  routes.page('/app/setup', async (app) => ({
    title: app.t.setup.title,
    section: 'setup',
    body: html`<h1>${app.t.setup.title}</h1>${setupNav(app, null)}
<section class="card" aria-labelledby="sessions-title"><h2 id="sessions-title">${app.t.setup.sessions}</h2><p>${app.t.sessions.intro}</p>
<form method="post" action="/app/sign-out-everywhere"><input type="hidden" name="csrf" value="${app.session.csrfToken}"><button type="submit" class="danger">${app.t.sessions.signOutEverywhere}</button></form></section>`,
  }), KEPT);
  installCataloguePages(routes);
  installHoursPages(routes);
  installSettingsPages(routes);
  installAccessPages(routes);
  installNotificationPages(routes);
}
