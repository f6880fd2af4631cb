/**
 * Setup › Notifications (docs/web.md "Push", docs/mail.md "The owner's notices"): where the owner's
 * notices go by mail, the customers' reminders, this device's push notifications (a button the
 * script wires: it registers the service worker, subscribes with the instance's VAPID key and sends
 * the subscription to /app/push/subscriptions), and the devices that get them, each removable.
 */
import { attr, html } from '@svc/shared';
import type { AppRoutes } from './app-routes.js';
import { KEPT_UNTIL_ANY_WRITE, asPage, setupPage, textOf, type SetupRenderer } from './setup-kit.js';
import { notificationTexts } from './messages-notifications.js';
import { postForm } from './views/layout.js';
import { formatInstant } from './views/format.js';

interface NotificationSettings {
  version: number;
  settings: { notifications: { ownerEmail: string | null; customerReminders: boolean } };
}

interface Device {
  id: string;
  push_service: string;
  label: string | null;
  created_at: string;
  last_sent_at: string | null;
  last_error: string | null;
}

const renderNotifications: SetupRenderer = async (app, problem) => {
  const n = notificationTexts(app.lang);
  const [{ version, settings }, { applicationServerKey }, { items: devices }] = await Promise.all([
    app.call<NotificationSettings>('get_settings'),
    app.call<{ applicationServerKey: string }>('get_push_key'),
    app.call<{ items: Device[] }>('list_push_subscriptions'),
  ]);
  const zone = app.profile.timeZone;
  const mail = postForm(
    '/app/setup/notifications',
    app.session.csrfToken,
    app.formKey(),
    html`<input type="hidden" name="expected_version" value="${version}">
<label for="nt-email">${n.ownerEmail}</label>
<input type="email" id="nt-email" name="ownerEmail" value="${settings.notifications.ownerEmail ?? ''}" autocomplete="email" aria-describedby="nt-email-help">
<p class="help" id="nt-email-help">${n.ownerEmailHelp}</p>
<label class="inline"><input type="checkbox" name="customerReminders" value="1"${attr('checked', settings.notifications.customerReminders ? 'checked' : null)}> ${n.reminders}</label>
<div class="actions"><button type="submit" class="primary">${app.t.setup.save}</button></div>`,
  );
  const list =
    devices.length === 0
      ? html`<p class="muted">${n.noDevices}</p>`
      : html`<ul class="plain">${devices.map(
          (device) => html`<li class="card"><strong>${device.label ?? device.push_service}</strong> <span class="muted small">${device.push_service}</span><br>
<span class="small">${n.since} ${formatInstant(device.created_at, zone, app.lang)}${device.last_sent_at ? html` · ${n.lastSent} ${formatInstant(device.last_sent_at, zone, app.lang)}` : null}${
            device.last_error ? html` · ${n.lastError}: ${device.last_error}` : null
          }</span>
${postForm('/app/setup/notifications/remove', app.session.csrfToken, app.formKey(), html`<input type="hidden" name="id" value="${device.id}"><button type="submit" class="danger">${n.remove}</button>`)}</li>`,
        )}</ul>`;
  const body = html`<section class="card" aria-labelledby="nt-mail"><h2 id="nt-mail">${n.mailHeading}</h2>${mail}</section>
<section class="card" aria-labelledby="nt-push"><h2 id="nt-push">${n.pushHeading}</h2><p>${n.pushIntro}</p>
<p class="muted" data-push-unavailable>${n.pushUnavailable}</p>
<button type="button" class="primary" hidden data-push-key="${applicationServerKey}" data-csrf="${app.session.csrfToken}" data-denied="${n.pushDenied}" data-failed="${n.pushFailed}" data-on="${n.pushOn}">${n.pushButton}</button>
<p role="status" data-push-status></p></section>
<section class="card" aria-labelledby="nt-devices"><h2 id="nt-devices">${n.devicesHeading}</h2>${list}</section>`;
  return setupPage(app, 'notifications', problem, body);
};

export function installNotificationPages(routes: AppRoutes): void {
  // Reads the subscriptions, which are bookkeeping (not shown on the inbox's pages): kept until any write.
  routes.page('/app/setup/notifications', asPage(renderNotifications), KEPT_UNTIL_ANY_WRITE);
  routes.action(
    '/app/setup/notifications',
    async (app, form) => {
      await app.call('update_settings', {
        settings: { notifications: { ownerEmail: textOf(form, 'ownerEmail'), customerReminders: form.get('customerReminders') === '1' } },
        expected_version: Number(form.get('expected_version')) || undefined,
        idempotency_key: form.get('idempotency_key'),
      });
      return '/app/setup/notifications?done=saved';
    },
    asPage(renderNotifications),
  );
  routes.action(
    '/app/setup/notifications/remove',
    async (app, form) => {
      await app.call('remove_push_subscription', { id: textOf(form, 'id') ?? '', idempotency_key: form.get('idempotency_key') });
      return '/app/setup/notifications?done=saved';
    },
    asPage(renderNotifications),
  );
}
