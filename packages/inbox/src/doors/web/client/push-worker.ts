/**
 * The owner app's service worker (docs/web.md "Push"): shows the notices the inbox pushes (a new
 * request, a customer's message, a payment) and opens the item when one is tapped. Registered by the
 * "turn on notifications" button of Setup › Notifications, with the scope /app/.
 */

interface PushMessageLike {
  json(): unknown;
}
interface WaitingEvent extends Event {
  waitUntil(work: Promise<unknown>): void;
}
interface PushEventLike extends WaitingEvent {
  data: PushMessageLike | null;
}
interface NotificationClickLike extends WaitingEvent {
  notification: Notification;
}
interface WindowClientLike {
  url: string;
  focus(): Promise<unknown>;
  navigate(url: string): Promise<unknown>;
}
interface WorkerScopeLike {
  registration: ServiceWorkerRegistration;
  clients: { matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<WindowClientLike[]>; openWindow(url: string): Promise<unknown> };
  location: { origin: string };
  addEventListener(type: 'push' | 'notificationclick', listener: (event: Event) => void): void;
}

const workerScope = self as unknown as WorkerScopeLike;

interface PushedNotice {
  title: string;
  body: string;
  url: string;
  tag: string;
  lang?: string;
}

workerScope.addEventListener('push', (event) => {
  const push = event as PushEventLike;
  let notice: PushedNotice = { title: 'Inbox', body: '', url: '/app/inbox', tag: 'inbox' };
  try {
    notice = { ...notice, ...(push.data?.json() as Partial<PushedNotice>) };
  } catch {
    // A message that is not JSON still shows that something came.
  }
  push.waitUntil(
    workerScope.registration.showNotification(notice.title, { body: notice.body, tag: notice.tag, data: { url: notice.url }, ...(notice.lang ? { lang: notice.lang } : {}) }),
  );
});

workerScope.addEventListener('notificationclick', (event) => {
  const click = event as NotificationClickLike;
  click.notification.close();
  const wanted = new URL(String((click.notification.data as { url?: string } | null)?.url ?? '/app/inbox'), workerScope.location.origin);
  // Only the app's own pages open from a notice.
  const url = wanted.origin === workerScope.location.origin && wanted.pathname.startsWith('/app/') ? wanted.href : `${workerScope.location.origin}/app/inbox`;
  click.waitUntil(
    workerScope.clients.matchAll({ type: 'window', includeUncontrolled: true }).then(async (open) => {
      const tab = open.find((client) => new URL(client.url).pathname.startsWith('/app/'));
      if (tab) {
        await tab.navigate(url);
        return tab.focus();
      }
      return workerScope.clients.openWindow(url);
    }),
  );
});
