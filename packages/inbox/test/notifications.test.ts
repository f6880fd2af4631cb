/**
 * Issue 37, being told and the customer's mail (docs/mail.md, docs/web.md "Push", "The customer's
 * page"): the customer's notices in their language through a real SMTP server, the owner's notices
 * gathered into one mail within a minute (surviving a restart), Web Push received and decrypted here
 * with node:crypto and its VAPID JWT checked with jose, the reminder the day before, the business's
 * name on its replies, the customer's page over HTTP, and the waiting count in the owner app's title.
 */
import { afterEach, describe, expect, it } from 'vitest';
import PostalMime from 'postal-mime';
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { smtpMailer } from '@svc/shared';
import { startInbox, type TestInbox } from './support/harness.js';
import { expectFieldProblem, expectProblem } from './support/customer-calls.js';
import { startTestSmtp } from './support/test-smtp.js';
import { browserKeys, startPushService } from './support/push-receiver.js';
import { formBody, setCookies, signInToApp } from './support/owner-app.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInboxFromEnvironment } from '../src/main.js';
import { loadSettings } from '../src/domain/context.js';

let t: TestInbox;
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await t?.close();
  for (const close of closers.splice(0)) await close();
});

async function withSmtp(options: { dataDir?: string; ownerKey?: string; clock?: TestInbox['clock'] } = {}) {
  const smtp = await startTestSmtp();
  closers.push(smtp.close);
  t = await startInbox({ ...options, mailer: smtpMailer({ url: smtp.url, from: 'inbox@salon.example' }), allowLocalPush: true });
  return smtp;
}

const parse = (raw: string) => PostalMime.parse(raw);

async function book(startTime: string, contact: Record<string, string> = { name: 'Ana Silva', email: 'ana@example.com' }, extra: Record<string, unknown> = {}) {
  const r = await t.request('POST', '/v1/bookings', { body: { payload: { serviceId: 'haircut', startTime }, contact, ...extra } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string; accessToken: string };
}

async function confirm(id: string) {
  const r = await t.owner('POST', `/v1/owner/items/${id}/transitions`, { body: { event: 'confirm' } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

async function setSettings(settings: Record<string, unknown>) {
  const r = await t.owner('PUT', '/v1/owner/settings', { body: { settings } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

/** The link of a notice, on the test server's own port. */
function pageLinkOf(text: string): string {
  const link = /http:\/\/127\.0\.0\.1(\/i\/[0-9A-Z]{26}\?access_token=[A-Za-z0-9_-]+)/.exec(text)?.[1];
  expect(link, text).toBeTruthy();
  return `${t.baseUrl}${link}`;
}

describe("the customer's mail", () => {
  it('is in Portuguese for a pt-PT customer, the time in Lisbon as people write it, with a link to a page they can read', async () => {
    const smtp = await withSmtp();
    const created = await book('2026-12-04T11:00:00Z', { name: 'Ana Silva', email: 'ana@example.com', locale: 'pt-PT' });
    await confirm(created.id);
    await t.inbox.jobs.runDue();
    expect(smtp.received).toHaveLength(1);
    const mail = await parse(smtp.received[0]!.raw);
    expect(mail.subject).toBe('Salão Aurora: a sua marcação está confirmada');
    expect(mail.text).toContain('Olá Ana Silva,');
    expect(mail.text).toContain('Salão Aurora confirmou a sua marcação: Haircut, sexta-feira, 4 de dezembro, 11:00 (25,00\u00a0€).');
    expect(mail.text).not.toMatch(/2026-12-04T|\/v1\/items/);
    // The link opens the item's page: the token is swapped for a cookie of the item's path at once.
    const opened = await fetch(pageLinkOf(mail.text ?? ''), { redirect: 'manual' });
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe(`/i/${created.id}`);
    expect(opened.headers.get('referrer-policy')).toBe('no-referrer');
    expect(opened.headers.get('cache-control')).toBe('no-store');
    const cookieLine = opened.headers.getSetCookie()[0] ?? '';
    expect(cookieLine).toMatch(new RegExp(`^svc_item=[^;]+; Path=/i/${created.id}; Max-Age=43200; SameSite=Lax; HttpOnly$`));
    const page = await fetch(`${t.baseUrl}/i/${created.id}`, { headers: { cookie: cookieLine.split(';')[0]! } });
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    // Its own address holds no token: nothing to other sites, and its forms carry their real Origin.
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    const html = await page.text();
    expect(html).toContain('<html lang="pt">');
    expect(html).toContain('Confirmada');
    expect(html).toContain('sexta-feira, 4 de dezembro, 11:00');
    expect(html).not.toContain('<script');
  });

  it("is in the customer's own language when the inbox writes it, else the business's; a proposal, a question and the business's cancellation are told too", async () => {
    const smtp = await withSmtp();
    const english = await book('2026-12-04T14:00:00Z', { name: 'Jo', email: 'jo@example.com', locale: 'en-US' });
    const german = await book('2026-12-04T15:00:00Z', { name: 'Jörg', email: 'jorg@example.com', locale: 'de-DE' });
    await confirm(english.id);
    const proposed = await t.owner('POST', `/v1/owner/items/${german.id}/transitions`, { body: { event: 'propose', input: { startTime: '2026-12-05T10:00:00Z' } } });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(200);
    await t.inbox.jobs.runDue();
    const mails = await Promise.all(smtp.received.map((m) => parse(m.raw)));
    const toJo = mails.find((m) => m.to?.[0]?.address === 'jo@example.com')!;
    expect(toJo.subject).toBe('Salão Aurora: your booking is confirmed');
    expect(toJo.text).toContain('Salão Aurora confirmed your booking: Haircut, Friday, December 4, 2:00 PM (€25.00).');
    const toJorg = mails.find((m) => m.to?.[0]?.address === 'jorg@example.com')!;
    // German is not written here: the business's language.
    expect(toJorg.subject).toBe('Salão Aurora propõe outra hora');
    expect(toJorg.text).toContain('propõe sábado, 5 de dezembro, 10:00');
    const cancelled = await t.owner('POST', `/v1/owner/items/${english.id}/transitions`, { body: { event: 'cancel_by_business', reason: 'ill' } });
    expect(cancelled.status).toBe(200);
    await t.inbox.jobs.runDue();
    const last = await parse(smtp.received.at(-1)!.raw);
    expect(last.subject).toBe('Salão Aurora cancelled your booking');
  });

  it("names the business on its replies for the customer; the key's name stays in the owner's history", async () => {
    t = await startInbox();
    const created = await book('2026-12-04T11:00:00Z');
    expect((await t.owner('POST', `/v1/owner/items/${created.id}/replies`, { body: { message: 'Até sexta!' } })).status).toBe(201);
    const customer = await t.request('GET', `/v1/items/${created.id}`, { headers: { 'x-access-token': created.accessToken } });
    expect(customer.body.conversation[0]).toMatchObject({ from: 'business', authorName: 'Salão Aurora', text: 'Até sexta!' });
    expect(JSON.stringify(customer.body)).not.toContain('test owner');
    const owner = await t.owner('GET', `/v1/owner/items/${created.id}`);
    expect(owner.body.conversation[0]).toMatchObject({ authorName: 'test owner' });
  });
});

describe("the owner's notices by mail", () => {
  it('gathers what comes within 30 seconds into one mail, sent within the minute; sandbox items and the owner\'s own moves tell nobody', async () => {
    const smtp = await withSmtp();
    await setSettings({ notifications: { ownerEmail: 'dono@salao.example' } });
    const first = await book('2026-12-04T11:00:00Z');
    t.clock.advance(10_000);
    const second = await book('2026-12-04T15:00:00Z', { name: 'Rui Costa', email: 'rui@example.com' });
    await book('2026-12-04T16:00:00Z', { name: 'Teste', email: 't@example.com' }, { sandbox: true });
    await t.owner('POST', `/v1/owner/items/${first.id}/replies`, { body: { message: 'Recebido.' } });
    await t.inbox.jobs.runDue();
    const toOwner = () => smtp.received.filter((m) => m.to[0] === 'dono@salao.example');
    expect(toOwner()).toHaveLength(0);
    t.clock.advance(19_000);
    await t.inbox.jobs.runDue();
    expect(toOwner()).toHaveLength(0);
    t.clock.advance(1_000);
    await t.inbox.jobs.runDue();
    expect(toOwner()).toHaveLength(1);
    const mail = await parse(toOwner()[0]!.raw);
    expect(mail.subject).toBe('Salão Aurora: 2 novidades na sua caixa');
    expect(mail.text).toContain('• Novo pedido de marcação — Ana Silva · Haircut, sexta-feira, 4 de dezembro, 11:00');
    expect(mail.text).toContain('• Novo pedido de marcação — Rui Costa · Haircut, sexta-feira, 4 de dezembro, 15:00');
    expect(mail.text).toContain(`http://127.0.0.1/app/items/${first.id}`);
    expect(mail.text).toContain(`http://127.0.0.1/app/items/${second.id}`);
    expect(mail.text).not.toContain('Teste');
    // Each notice went once.
    t.clock.advance(60_000);
    await t.inbox.jobs.runDue();
    expect(toOwner()).toHaveLength(1);
    // A customer's message later is a mail of its own, with its words.
    const written = await t.request('POST', '/v1/messages', { body: { item_id: second.id, message: 'Posso levar o meu filho?' }, headers: { 'x-access-token': second.accessToken } });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    t.clock.advance(30_000);
    await t.inbox.jobs.runDue();
    expect(toOwner()).toHaveLength(2);
    const message = await parse(toOwner()[1]!.raw);
    expect(message.subject).toBe('Salão Aurora: Nova mensagem na marcação');
    expect(message.text).toContain('“Posso levar o meu filho?”');
  });

  it('makes one line of an item whose customer wrote and so answered a question', async () => {
    const smtp = await withSmtp();
    await setSettings({ notifications: { ownerEmail: 'dono@salao.example' } });
    const created = await book('2026-12-04T11:00:00Z');
    t.clock.advance(60_000);
    await t.inbox.jobs.runDue();
    expect((await t.owner('POST', `/v1/owner/items/${created.id}/transitions`, { body: { event: 'request_info' } })).status).toBe(200);
    const answer = await t.request('POST', '/v1/messages', { body: { item_id: created.id, message: 'Cabelo comprido.' }, headers: { 'x-access-token': created.accessToken } });
    expect(answer.body.state).toBe('requested');
    t.clock.advance(30_000);
    await t.inbox.jobs.runDue();
    const toOwner = smtp.received.filter((m) => m.to[0] === 'dono@salao.example');
    expect(toOwner).toHaveLength(2);
    const mail = await parse(toOwner[1]!.raw);
    expect(mail.subject).toBe('Salão Aurora: Nova mensagem na marcação');
    expect(mail.text?.match(/^• /gm)).toHaveLength(1);
    expect(mail.text).toContain('“Cabelo comprido.”');
  });

  it('is a durable job: a notice queued before a restart goes out after it; the write never waits for the mail', async () => {
    let smtp = await withSmtp();
    await setSettings({ notifications: { ownerEmail: 'dono@salao.example' } });
    const created = await book('2026-12-04T11:00:00Z');
    expect(created.id).toBeTruthy();
    const { dataDir, clock, ownerKey } = t;
    await t.close({ removeData: false });
    smtp = await withSmtp({ dataDir, clock, ownerKey });
    clock.advance(30_000);
    await t.inbox.jobs.runDue();
    const mails = smtp.received.filter((m) => m.to[0] === 'dono@salao.example');
    expect(mails).toHaveLength(1);
    expect((await parse(mails[0]!.raw)).subject).toBe('Salão Aurora: Novo pedido de marcação');
  });

  it('never mails one notice from two jobs at once: a job takes its notices with a lease, and gives them back when its send fails', async () => {
    const smtp = await withSmtp();
    await setSettings({ notifications: { ownerEmail: 'dono@salao.example' } });
    await book('2026-12-04T11:00:00Z');
    await book('2026-12-04T15:00:00Z', { name: 'Rui', email: 'rui@example.com' });
    const store = t.inbox.store.notifications;
    const now = t.clock.now();
    const [first, second] = await Promise.all([store.claimNotices('mail', now, 45_000, 50), store.claimNotices('mail', now, 45_000, 50)]);
    expect(first.length + second.length).toBe(2);
    expect(new Set([...first, ...second].map((n) => n.id)).size).toBe(2);
    // Taken: a job running now finds nothing to mail; given back, the next one mails them.
    t.clock.advance(30_000);
    await t.inbox.jobs.runDue();
    expect(smtp.received.filter((m) => m.to[0] === 'dono@salao.example')).toHaveLength(0);
    await store.releaseNotices('mail', [...first, ...second].map((n) => n.id));
    await t.inbox.store.jobs.enqueue({ id: '01JZZZZZZZZZZZZZZZZZZZZZZZ', kind: 'owner.notice_mail', payload: {}, runAt: t.clock.now(), dedupeKey: null }, t.clock.now());
    await t.inbox.jobs.runDue();
    expect(smtp.received.filter((m) => m.to[0] === 'dono@salao.example')).toHaveLength(1);
  });

  it('refuses an owner address that is not one (problem document), and keeps the settings as they were', async () => {
    t = await startInbox();
    const r = await t.owner('PUT', '/v1/owner/settings', { body: { settings: { notifications: { ownerEmail: 'not an address' } } } });
    expectFieldProblem(r, 'settings.notifications.ownerEmail');
    expect((await t.owner('GET', '/v1/owner/settings')).body.settings.notifications).toEqual({ ownerEmail: null, customerReminders: true });
  });
});

describe('Web Push to the browsers the owner allowed', () => {
  it('pushes a new request at once, encrypted to the browser (RFC 8291) and signed with the VAPID key (RFC 8292); a 410 forgets the browser', async () => {
    const service = await startPushService();
    closers.push(service.close);
    await withSmtp();
    const browser = browserKeys();
    const { applicationServerKey } = (await t.owner('GET', '/v1/owner/push/key')).body as { applicationServerKey: string };
    expect(Buffer.from(applicationServerKey, 'base64url')).toHaveLength(65);
    const endpoint = `${service.origin}/push/send/abc123`;
    const added = await t.owner('POST', '/v1/owner/push/subscriptions', { body: { endpoint, expirationTime: null, keys: { p256dh: browser.p256dh, auth: browser.auth }, label: 'Phone' } });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body).toMatchObject({ push_service: service.origin, label: 'Phone', last_sent_at: null });
    expect(JSON.stringify(added.body)).not.toContain('abc123');

    const created = await book('2026-12-04T11:00:00Z');
    await t.inbox.jobs.runDue();
    expect(service.arrivals).toHaveLength(1);
    const arrival = service.arrivals[0]!;
    expect(arrival.path).toBe('/push/send/abc123');
    expect(arrival.headers['content-encoding']).toBe('aes128gcm');
    expect(Number(arrival.headers.ttl)).toBeGreaterThan(0);
    // The VAPID JWT: signed by the key the browser subscribed with, for this push service, not for long.
    const vapid = /^vapid t=([^,]+), k=([A-Za-z0-9_-]+)$/.exec(String(arrival.headers.authorization));
    expect(vapid, String(arrival.headers.authorization)).toBeTruthy();
    expect(vapid![2]).toBe(applicationServerKey);
    expect(decodeProtectedHeader(vapid![1]!)).toMatchObject({ alg: 'ES256', typ: 'JWT' });
    const point = Buffer.from(applicationServerKey, 'base64url');
    const key = await importJWK({ kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') }, 'ES256');
    const { payload } = await jwtVerify(vapid![1]!, key, { audience: service.origin });
    expect(payload.sub).toBe('mailto:inbox@salon.example');
    expect(payload.exp! - Date.now() / 1000).toBeLessThanOrEqual(24 * 3600);
    // What the browser reads, decrypted here without the library the inbox sends with.
    const notice = JSON.parse(browser.decrypt(arrival.body).toString('utf8'));
    expect(notice).toMatchObject({ title: 'Salão Aurora: Novo pedido de marcação', url: `http://127.0.0.1/app/items/${created.id}`, tag: `item-${created.id}`, lang: 'pt-PT' });
    expect(notice.body).toBe('Ana Silva · Haircut, sexta-feira, 4 de dezembro, 11:00');
    const listed = await t.owner('GET', '/v1/owner/push/subscriptions');
    expect(listed.body.items[0].last_sent_at).not.toBeNull();

    // The push service says the subscription is gone: it is forgotten, and nothing more goes there.
    service.answerWith(410);
    await book('2026-12-04T15:00:00Z', { name: 'Rui', email: 'rui@example.com' });
    await t.inbox.jobs.runDue();
    expect(service.arrivals).toHaveLength(2);
    expect((await t.owner('GET', '/v1/owner/push/subscriptions')).body.items).toEqual([]);
    await book('2026-12-04T16:00:00Z', { name: 'Eva', email: 'eva@example.com' });
    await t.inbox.jobs.runDue();
    expect(service.arrivals).toHaveLength(2);
  });

  it('refuses subscriptions that could never be sent to, as problem documents naming the fields', async () => {
    t = await startInbox({ allowLocalPush: false });
    const good = browserKeys();
    const bad = await t.owner('POST', '/v1/owner/push/subscriptions', { body: { endpoint: 'ftp://push.example/x', keys: { p256dh: 'abc', auth: 'x' } } });
    expectFieldProblem(bad, 'endpoint');
    expect(bad.body.fields.map((f: { path: string }) => f.path).sort()).toEqual(['endpoint', 'keys.auth', 'keys.p256dh']);
    // A point that is not on the curve, and this machine without the development setting.
    const offCurve = Buffer.alloc(65, 7);
    offCurve[0] = 4;
    const r = await t.owner('POST', '/v1/owner/push/subscriptions', { body: { endpoint: 'http://127.0.0.1:9/x', keys: { p256dh: offCurve.toString('base64url'), auth: good.auth } } });
    expect(r.body.fields.map((f: { path: string }) => f.path).sort()).toEqual(['endpoint', 'keys.p256dh']);
    expectProblem(await t.owner('POST', '/v1/owner/push/subscriptions', { body: { endpoint: 'https://push.example/x' } }), 422, 'invalid_input');
    expectProblem(await t.owner('DELETE', '/v1/owner/push/subscriptions/01JZZZZZZZZZZZZZZZZZZZZZZZ'), 404, 'not_found');
    expectProblem(await t.request('GET', '/v1/owner/push/subscriptions'), 401, 'unauthorized');
    expect((await t.owner('GET', '/v1/owner/push/subscriptions')).body.items).toEqual([]);
  });
});

describe("the owner app's push button's door", () => {
  it('takes the browser\'s subscription from a signed-in page with its CSRF token, and refuses others as problem documents', async () => {
    t = await startInbox({ allowLocalPush: true });
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const browser = browserKeys();
    const send = (body: unknown, headers: Record<string, string>) =>
      fetch(`${t.baseUrl}/app/push/subscriptions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(async (r) => ({
        status: r.status,
        type: r.headers.get('content-type'),
        body: (await r.json()) as any,
      }));
    const subscription = { endpoint: 'http://127.0.0.1:9/push/1', expirationTime: null, keys: { p256dh: browser.p256dh, auth: browser.auth }, label: 'Chrome · Android' };
    const noCsrf = await send(subscription, { cookie: app.cookie });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.type).toMatch(/^application\/problem\+json/);
    expect(noCsrf.body.code).toBe('not_allowed');
    expect((await send(subscription, { cookie: app.cookie, 'x-csrf-token': app.csrf, origin: 'https://evil.example' })).status).toBe(403);
    expect((await send(subscription, { 'x-csrf-token': app.csrf })).body.code).toBe('unauthorized');
    const bad = await send({ ...subscription, keys: { p256dh: 'x', auth: browser.auth } }, { cookie: app.cookie, 'x-csrf-token': app.csrf });
    expect(bad.status).toBe(422);
    expect(bad.body.fields.map((f: { path: string }) => f.path)).toEqual(['keys.p256dh']);
    const made = await send(subscription, { cookie: app.cookie, 'x-csrf-token': app.csrf });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ label: 'Chrome · Android', push_service: 'http://127.0.0.1:9' });
    // The worker is served under /app/ so its scope is the app, never cached for long.
    const worker = await fetch(`${t.baseUrl}/app/push-worker.js`);
    expect(worker.status).toBe(200);
    expect(worker.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(worker.headers.get('cache-control')).toBe('no-store');
    // The screen lists the device.
    expect((await app.get('/app/setup/notifications')).text).toContain('Chrome · Android');
  });
});

describe('npm start', () => {
  it('gives the demo owner an address and says where the owner\'s notices land', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'inbox-start-notices-'));
    closers.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const started = await startInboxFromEnvironment({ DATA_DIR: dataDir, INBOX_PORT: '0', LOG_LEVEL: 'silent' });
    closers.unshift(() => started.inbox.close());
    const line = started.lines.find((l) => l.trimStart().startsWith('owner notices'));
    expect(line).toMatch(/owner notices +mailed to dono@salao-aurora\.example \(so into the sink: http:\/\/127\.0\.0\.1:\d+\/dev\/mail\)/);
    expect((await loadSettings(started.inbox.store)).settings.notifications.ownerEmail).toBe('dono@salao-aurora.example');
  });
});

describe('the reminder the day before', () => {
  it('goes 24 hours before a confirmed booking, once, in the customer\'s language; survives a restart', async () => {
    const smtp = await withSmtp();
    const created = await book('2026-11-27T15:00:00Z', { name: 'Ana', email: 'ana@example.com', locale: 'pt' });
    await confirm(created.id);
    await t.inbox.jobs.runDue();
    expect(smtp.received).toHaveLength(1);
    const jobs = await t.inbox.store.jobs.list('booking.reminder');
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.runAt).toBe(Date.parse('2026-11-26T15:00:00Z'));
    const { dataDir, clock, ownerKey } = t;
    await t.close({ removeData: false });
    const again = await withSmtp({ dataDir, clock, ownerKey });
    clock.set('2026-11-26T14:59:00Z');
    await t.inbox.jobs.runDue();
    expect(again.received).toHaveLength(0);
    clock.set('2026-11-26T15:00:30Z');
    await t.inbox.jobs.runDue();
    expect(again.received).toHaveLength(1);
    const reminder = await parse(again.received[0]!.raw);
    expect(reminder.subject).toBe('Lembrete: Salão Aurora, sexta-feira, 27 de novembro, 15:00');
    expect(reminder.text).toContain('Lembramos a sua marcação em Salão Aurora: Haircut, sexta-feira, 27 de novembro, 15:00.');
    expect(reminder.text).toContain(`/i/${created.id}?access_token=svc_pg_`);
    clock.advance(3_600_000);
    await t.inbox.jobs.runDue();
    expect(again.received).toHaveLength(1);
  });

  it('is cancelled with the booking, not sent when the owner turned reminders off, and not queued for a booking less than a day away', async () => {
    const smtp = await withSmtp();
    const cancelled = await book('2026-11-27T15:00:00Z');
    await confirm(cancelled.id);
    expect((await t.request('POST', `/v1/items/${cancelled.id}/cancel`, { body: {}, headers: { 'x-access-token': cancelled.accessToken } })).status).toBe(200);
    expect((await t.inbox.store.jobs.list('booking.reminder')).map((j) => j.status)).toEqual(['cancelled']);
    const quiet = await book('2026-11-28T10:00:00Z', { name: 'Rui', email: 'rui@example.com' });
    await confirm(quiet.id);
    await setSettings({ notifications: { customerReminders: false } });
    const soon = await book('2026-11-24T10:00:00Z', { name: 'Eva', email: 'eva@example.com' });
    await confirm(soon.id);
    expect((await t.inbox.store.jobs.list('booking.reminder')).length).toBe(2);
    t.clock.set('2026-11-28T09:00:00Z');
    await t.inbox.jobs.runDue();
    expect(smtp.received.filter((m) => /Lembrete|Reminder/.test(m.raw))).toHaveLength(0);
  });
});

describe("the customer's page over HTTP", () => {
  async function openPage(id: string, token: string): Promise<string> {
    const opened = await fetch(`${t.baseUrl}/i/${id}?access_token=${encodeURIComponent(token)}`, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    const [name, value] = [...setCookies(opened)][0]!;
    return `${name}=${value}`;
  }
  const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const post = (id: string, action: string, cookie: string, fields: Record<string, string>, origin = t.baseUrl) =>
    fetch(`${t.baseUrl}/i/${id}/${action}`, { method: 'POST', redirect: 'manual', headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' }, body: formBody(fields) });

  it('refuses a wrong token (401), an unknown item (404) and a visit without its cookie (401), each as a page in words', async () => {
    t = await startInbox();
    const created = await book('2026-12-04T11:00:00Z');
    const wrong = await fetch(`${t.baseUrl}/i/${created.id}?access_token=svc_pg_wrong`, { redirect: 'manual' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('content-type')).toMatch(/^text\/html/);
    expect(wrong.headers.getSetCookie()).toEqual([]);
    expect(wrong.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await wrong.text()).toContain('Esta ligação não abre esta página.');
    const other = await book('2026-12-04T15:00:00Z', { name: 'Rui', email: 'rui@example.com' });
    expect((await fetch(`${t.baseUrl}/i/${created.id}?access_token=${other.accessToken}`, { redirect: 'manual' })).status).toBe(401);
    const unknown = await fetch(`${t.baseUrl}/i/01JZZZZZZZZZZZZZZZZZZZZZZZ`);
    expect(unknown.status).toBe(404);
    expect((await fetch(`${t.baseUrl}/i/${created.id}`)).status).toBe(401);
    // A cookie of another item opens nothing here.
    const otherCookie = await openPage(other.id, other.accessToken);
    expect((await fetch(`${t.baseUrl}/i/${created.id}`, { headers: { cookie: otherCookie } })).status).toBe(401);
  });

  it('takes a reply and a cancellation through the same rules as the API: CSRF, idempotency, refusals said with their status', async () => {
    t = await startInbox();
    const created = await book('2026-12-04T11:00:00Z', { name: 'Jo', email: 'jo@example.com', locale: 'en' });
    const cookie = await openPage(created.id, created.accessToken);
    const page = await (await fetch(`${t.baseUrl}/i/${created.id}`, { headers: { cookie } })).text();
    expect(page).toContain('it holds no place until they do');
    const csrf = csrfOf(page);
    expect((await post(created.id, 'reply', cookie, { csrf: 'forged', idempotency_key: 'k1', message: 'Hi' })).status).toBe(403);
    expect((await post(created.id, 'reply', cookie, { csrf, idempotency_key: 'k1', message: 'Hi' }, 'https://evil.example')).status).toBe(403);
    const replied = await post(created.id, 'reply', cookie, { csrf, idempotency_key: 'k1', message: 'Can I come 10 minutes late?' });
    expect(replied.status).toBe(303);
    expect(replied.headers.get('location')).toBe(`/i/${created.id}?done=replied`);
    // The same form sent twice makes one message.
    expect((await post(created.id, 'reply', cookie, { csrf, idempotency_key: 'k1', message: 'Can I come 10 minutes late?' })).status).toBe(303);
    const empty = await post(created.id, 'reply', cookie, { csrf, idempotency_key: 'k2', message: '   ' });
    expect(empty.status).toBe(422);
    expect(await empty.text()).toContain('Please check what you wrote');
    const owner = await t.owner('GET', `/v1/owner/items/${created.id}`);
    expect(owner.body.conversation.map((m: { text: string; channel: string }) => [m.text, m.channel])).toEqual([['Can I come 10 minutes late?', 'customer_page']]);

    const unconfirmed = await post(created.id, 'cancel', cookie, { csrf, idempotency_key: 'k3' });
    expect(unconfirmed.status).toBe(422);
    expect(await unconfirmed.text()).toContain('Tick the box to confirm');
    const done = await post(created.id, 'cancel', cookie, { csrf, idempotency_key: 'k4', confirm: '1', reason: 'Ill' });
    expect(done.status).toBe(303);
    expect((await t.owner('GET', `/v1/owner/items/${created.id}`)).body.state).toBe('cancelled');
    const again = await post(created.id, 'cancel', cookie, { csrf, idempotency_key: 'k5', confirm: '1' });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('That can no longer be done');
  });

  it('says a late cancellation the business refuses in words, with 409', async () => {
    t = await startInbox();
    await setSettings({ booking: { lateCancellation: 'refuse' } });
    const created = await book('2026-11-24T09:30:00Z', { name: 'Jo', email: 'jo@example.com', locale: 'en' });
    await confirm(created.id);
    const cookie = await openPage(created.id, created.accessToken);
    const csrf = csrfOf(await (await fetch(`${t.baseUrl}/i/${created.id}`, { headers: { cookie } })).text());
    const refused = await post(created.id, 'cancel', cookie, { csrf, idempotency_key: 'k1', confirm: '1' });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('It is too late to do that here.');
    expect((await t.owner('GET', `/v1/owner/items/${created.id}`)).body.state).toBe('confirmed');
  });
});

describe("the owner app's title", () => {
  it('counts what waits for the owner, and the count follows the inbox', async () => {
    t = await startInbox();
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const titleOf = async () => /<title>([^<]*)<\/title>/.exec((await app.get('/app/inbox')).text)?.[1];
    expect(await titleOf()).toBe('Caixa de entrada · Salão Aurora');
    const first = await book('2026-12-04T11:00:00Z');
    await book('2026-12-04T15:00:00Z', { name: 'Rui', email: 'rui@example.com' });
    await book('2026-12-04T16:00:00Z', { name: 'Teste', email: 't@example.com' }, { sandbox: true });
    expect(await titleOf()).toMatch(/^\(2\) /);
    await confirm(first.id);
    expect(await titleOf()).toMatch(/^\(1\) /);
  });
});
