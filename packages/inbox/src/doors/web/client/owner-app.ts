/**
 * The owner app's one script (docs/web.md): everything works without it; with it, new items and
 * moves appear live (server-sent events from /app/live, then the page is fetched again and the
 * regions marked data-live-region are swapped, a polite announcement saying what changed), weighty
 * moves ask first, a secret shown once can be copied, and a day of the week editor can get more rows.
 */

function announce(text: string): void {
  const region = document.getElementById('live-announcer');
  if (region) region.textContent = text;
}

async function refreshRegions(): Promise<void> {
  const response = await fetch(location.href, { headers: { accept: 'text/html' }, credentials: 'same-origin', cache: 'no-store' });
  if (!response.ok || response.redirected) return;
  const fresh = new DOMParser().parseFromString(await response.text(), 'text/html');
  // The title carries the count of what waits for the owner: it follows the page.
  if (fresh.title) document.title = fresh.title;
  for (const region of Array.from(document.querySelectorAll<HTMLElement>('[data-live-region]'))) {
    const name = region.dataset.liveRegion ?? '';
    const replacement = fresh.querySelector<HTMLElement>(`[data-live-region="${CSS.escape(name)}"]`);
    // A region holding the focus (a form being filled) is left alone until it is left.
    if (!replacement || region.contains(document.activeElement)) continue;
    if (replacement.innerHTML !== region.innerHTML) region.innerHTML = replacement.innerHTML;
  }
  wireForms(document);
}

function startLive(): void {
  const body = document.body;
  const since = body.dataset.liveSince;
  if (!since || typeof EventSource === 'undefined') return;
  const item = body.dataset.liveItem;
  const source = new EventSource(`/app/live?since=${encodeURIComponent(since)}`);
  let pending: number | undefined;
  source.addEventListener('change', (message) => {
    let data: { item?: string; label?: string } = {};
    try {
      data = JSON.parse((message as MessageEvent<string>).data) as typeof data;
    } catch {
      return;
    }
    if (item && data.item !== item) return;
    // Several events in a burst make one refresh.
    window.clearTimeout(pending);
    pending = window.setTimeout(() => {
      void refreshRegions().then(() => announce(data.label ?? ''));
    }, 150);
  });
  source.addEventListener('error', () => {
    // Signed out elsewhere: the stream answers 401 and the browser stops retrying by itself.
    if (source.readyState === EventSource.CLOSED) announce('');
  });
}

function wireForms(root: ParentNode): void {
  for (const form of Array.from(root.querySelectorAll<HTMLFormElement>('form[data-confirm]'))) {
    if (form.dataset.wired) continue;
    form.dataset.wired = '1';
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.dataset.confirm ?? '')) event.preventDefault();
    });
  }
  for (const button of Array.from(root.querySelectorAll<HTMLButtonElement>('button[data-copy]'))) {
    if (button.dataset.wired) continue;
    button.dataset.wired = '1';
    button.hidden = false;
    button.addEventListener('click', () => {
      const source = button.parentElement?.querySelector('[data-copy-source]');
      if (source?.textContent) void navigator.clipboard?.writeText(source.textContent).then(() => (button.textContent = '✓'));
    });
  }
}

/** The week editor: a button per day adds one more empty period, up to the day's limit. */
function wireWeekEditor(): void {
  for (const day of Array.from(document.querySelectorAll<HTMLFieldSetElement>('fieldset.day[data-day]'))) {
    const max = Number(day.dataset.maxRows ?? '8');
    const label = document.documentElement.lang === 'pt' ? 'Adicionar um período' : 'Add a period';
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = label;
    button.addEventListener('click', () => {
      const rows = day.querySelectorAll('[data-period]');
      const last = rows[rows.length - 1];
      if (!last || rows.length >= max) return;
      const next = rows.length + 1;
      const copy = last.cloneNode(true) as HTMLElement;
      for (const element of Array.from(copy.querySelectorAll<HTMLElement>('[id], [for], [name]'))) {
        for (const attribute of ['id', 'for', 'name']) {
          const value = element.getAttribute(attribute);
          if (value) element.setAttribute(attribute, value.replace(/([.-])(\d+)([.-])(opens|closes)$/, `$1${next}$3$4`));
        }
        if (element instanceof HTMLInputElement) element.value = '';
      }
      for (const hint of Array.from(copy.querySelectorAll('.visually-hidden'))) hint.textContent = (hint.textContent ?? '').replace(/\d+$/, String(next));
      last.after(copy);
      copy.querySelector('input')?.focus();
      if (rows.length + 1 >= max) button.disabled = true;
    });
    day.append(button);
  }
}

/** base64url (a VAPID public key) to the bytes PushManager.subscribe takes. */
function bytesOfBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A few words naming this device for the owner's list of devices. */
function deviceLabel(): string {
  const agent = navigator.userAgent;
  const browser = /Edg\//.test(agent) ? 'Edge' : /Firefox\//.test(agent) ? 'Firefox' : /Chrome\//.test(agent) ? 'Chrome' : /Safari\//.test(agent) ? 'Safari' : 'Browser';
  const system = /Android/.test(agent) ? 'Android' : /iPhone|iPad/.test(agent) ? 'iOS' : /Mac OS X/.test(agent) ? 'macOS' : /Windows/.test(agent) ? 'Windows' : /Linux/.test(agent) ? 'Linux' : '';
  return system ? `${browser} · ${system}` : browser;
}

/** Setup › Notifications: the button registers the service worker, subscribes, and hands the subscription to the inbox. */
function wirePush(): void {
  const button = document.querySelector<HTMLButtonElement>('button[data-push-key]');
  if (!button || !('serviceWorker' in navigator) || !('PushManager' in window) || typeof Notification === 'undefined') return;
  const status = document.querySelector<HTMLElement>('[data-push-status]');
  const say = (text: string | undefined) => {
    if (status) status.textContent = text ?? '';
  };
  document.querySelector<HTMLElement>('[data-push-unavailable]')?.setAttribute('hidden', '');
  button.hidden = false;
  button.addEventListener('click', () => {
    void (async () => {
      if ((await Notification.requestPermission()) !== 'granted') return say(button.dataset.denied);
      try {
        const registration = await navigator.serviceWorker.register('/app/push-worker.js', { scope: '/app/' });
        await navigator.serviceWorker.ready;
        const subscription =
          (await registration.pushManager.getSubscription()) ??
          (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytesOfBase64url(button.dataset.pushKey ?? '') }));
        const response = await fetch('/app/push/subscriptions', {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/json', 'x-csrf-token': button.dataset.csrf ?? '' },
          body: JSON.stringify({ ...subscription.toJSON(), label: deviceLabel() }),
        });
        if (!response.ok) return say(button.dataset.failed);
        say(button.dataset.on);
        window.setTimeout(() => location.reload(), 800);
      } catch {
        say(button.dataset.failed);
      }
    })();
  });
}

wireForms(document);
wireWeekEditor();
wirePush();
startLive();
