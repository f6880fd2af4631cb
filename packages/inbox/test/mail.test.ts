/**
 * Mail (issue 15, docs/mail.md): customer notices go out through a real SMTP server on 127.0.0.1
 * (smtp-server) as durable jobs; without SMTP they land in the development sink; mail comes in at
 * POST /v1/email/inbound (raw MIME, shared secret) and lands on its item or starts a conversation.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import PostalMime from 'postal-mime';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MailRefused, sinkMailer, smtpMailer } from '@svc/shared';
import { startInbox, haircutAt, type TestInbox } from './support/harness.js';
import { expectProblem } from './support/customer-calls.js';

let t: TestInbox;
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await t?.close();
});

interface Received {
  from: string;
  to: string[];
  raw: string;
}

async function startSmtp(options: { refuse?: boolean } = {}): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (options.refuse) return callback(new Error('mailbox unavailable'));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function withSmtp() {
  const smtp = await startSmtp();
  closers.push(smtp.close);
  const mailer = smtpMailer({ url: smtp.url, from: 'inbox@salon.example' });
  t = await startInbox();
  // The harness builds its own inbox; rebuild it with the SMTP mailer on the same data folder.
  const { dataDir, clock, ownerKey } = t;
  await t.close({ removeData: false });
  t = await startInboxWith({ dataDir, clock, ownerKey, mailer });
  return smtp;
}

async function startInboxWith(options: Parameters<typeof startInbox>[0] & { mailer: ReturnType<typeof smtpMailer> }) {
  const { buildInbox } = await import('../src/app.js');
  const { jsonClient } = await import('../../../test-support/http-client.js');
  const { dropTestDatabase, testDatabaseUrl } = await import('../../../test-support/test-database.js');
  const inbox = await buildInbox({ dataDir: options.dataDir!, databaseUrl: await testDatabaseUrl('inbox', options.dataDir!), publicBaseUrl: 'http://127.0.0.1', clock: options.clock!, logLevel: 'silent', runJobs: false, mailer: options.mailer, mailFrom: 'inbox@salon.example' });
  const address = await inbox.http.listen({ host: '127.0.0.1', port: 0 });
  const request = jsonClient(address);
  const ownerKey = options.ownerKey!;
  const started: TestInbox = {
    inbox,
    baseUrl: address,
    dataDir: options.dataDir!,
    ownerKey,
    clock: options.clock!,
    request,
    owner: (method, path, opts = {}) => request(method, path, { ...opts, headers: { authorization: `Bearer ${ownerKey}`, ...(opts.headers ?? {}) } }),
    async close(closeOptions = {}) {
      await inbox.close();
      if (closeOptions.removeData ?? true) {
        (await import('node:fs')).rmSync(options.dataDir!, { recursive: true, force: true });
        await dropTestDatabase('inbox', options.dataDir!);
      }
    },
  };
  return started;
}

const SECRET = 'inbound-secret-of-the-salon-123';

async function setSecret() {
  const r = await t.owner('PUT', '/v1/owner/settings', { body: { settings: { email: { inboundSecret: SECRET } } } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

function inbound(raw: string | Buffer, headers: Record<string, string> = { 'x-inbox-email-secret': SECRET }) {
  return fetch(`${t.baseUrl}/v1/email/inbound`, { method: 'POST', headers: { 'content-type': 'message/rfc822', ...headers }, body: raw }).then(async (response) => {
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  });
}

function mime(lines: string[]): string {
  return lines.join('\r\n');
}

describe('outbound notices through SMTP', () => {
  it('a confirmed booking and the business\'s reply reach the customer; an internal note and a test item do not', async () => {
    const smtp = await withSmtp();
    const created = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-11-24T10:00:00Z') });
    expect(created.status).toBe(201);
    const confirm = await t.owner('POST', `/v1/owner/items/${created.body.id}/transitions`, { body: { event: 'confirm' } });
    expect(confirm.status, JSON.stringify(confirm.body)).toBe(200);
    await t.owner('POST', `/v1/owner/items/${created.body.id}/replies`, { body: { message: 'See you tomorrow — bring the photo.' } });
    await t.owner('POST', `/v1/owner/items/${created.body.id}/replies`, { body: { message: 'internal: she is a regular', internal: true } });
    const sandbox = await t.request('POST', '/v1/bookings', { body: { ...haircutAt('2026-11-24T11:00:00Z'), sandbox: true } });
    await t.owner('POST', `/v1/owner/items/${sandbox.body.id}/transitions`, { body: { event: 'confirm' } });
    // Nothing goes out in the request: the jobs send it.
    expect(smtp.received).toHaveLength(0);
    await t.inbox.jobs.runDue();
    expect(smtp.received).toHaveLength(2);
    const [confirmed, reply] = await Promise.all(smtp.received.map((m) => PostalMime.parse(m.raw)));
    expect(smtp.received.every((m) => m.to[0] === 'ana@example.com' && m.from === 'inbox@salon.example')).toBe(true);
    // No contact.locale: the business's language (pt-PT), its time as people write it in Lisbon.
    expect(confirmed!.subject).toBe('Salão Aurora: a sua marcação está confirmada');
    expect(confirmed!.text).toContain('Salão Aurora confirmou a sua marcação: Haircut, terça-feira, 24 de novembro, 10:00 (25,00\u00a0€).');
    expect(reply!.text).toContain('See you tomorrow — bring the photo.');
    expect(reply!.text).not.toContain('regular');
    expect(reply!.replyTo?.[0]).toMatchObject({ address: expect.stringMatching(new RegExp(`^inbox\\+r-${created.body.id.toLowerCase()}-[a-z0-9]{16}@salon\\.example$`)) });
    // Run again: each notice went once.
    await t.inbox.jobs.runDue();
    expect(smtp.received).toHaveLength(2);
  });

  it('an SMTP server that refuses keeps the notice queued for a retry; nothing is lost', async () => {
    const smtp = await startSmtp({ refuse: true });
    closers.push(smtp.close);
    t = await startInbox();
    const { dataDir, clock, ownerKey } = t;
    await t.close({ removeData: false });
    t = await startInboxWith({ dataDir, clock, ownerKey, mailer: smtpMailer({ url: smtp.url, from: 'inbox@salon.example' }) });
    const created = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-11-24T10:00:00Z') });
    await t.owner('POST', `/v1/owner/items/${created.body.id}/transitions`, { body: { event: 'confirm' } });
    await t.inbox.jobs.runDue();
    const pending = await t.inbox.store.jobs.claimDue(t.clock.now() + 3_600_000, 1, 10);
    expect(pending.map((j) => j.kind)).toContain('mail.notice');
  });
});

describe('the development sink (no SMTP set)', () => {
  it('keeps each mail as a file under the data folder and lists it on a local page', async () => {
    t = await startInbox();
    const created = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-11-24T10:00:00Z') });
    await t.owner('POST', `/v1/owner/items/${created.body.id}/transitions`, { body: { event: 'confirm' } });
    await t.inbox.jobs.runDue();
    const folder = join(t.dataDir, 'mail');
    expect(existsSync(folder)).toBe(true);
    const files = readdirSync(folder).filter((f) => f.endsWith('.eml'));
    expect(files).toHaveLength(1);
    const page = await fetch(`${t.baseUrl}/dev/mail`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('a sua marcação está confirmada');
    const one = await fetch(`${t.baseUrl}/dev/mail/${files[0]}`);
    const parsed = await PostalMime.parse(await one.text());
    expect(parsed.to?.[0]).toMatchObject({ address: 'ana@example.com' });
    expect((await fetch(`${t.baseUrl}/dev/mail/..%2Fsecret.key`)).status).toBe(404);
  });

  it('refuses header injection in what it sends, whatever the mailer', async () => {
    const dir = (await import('node:fs')).mkdtempSync(join((await import('node:os')).tmpdir(), 'sink-'));
    const mailer = sinkMailer(dir, 'inbox@salon.example', 'http://127.0.0.1/dev/mail');
    closers.push(() => mailer.close());
    await expect(mailer.send({ to: 'ana@example.com', subject: 'Hi\r\nBcc: all@example.com', text: 'x' })).rejects.toBeInstanceOf(MailRefused);
    await expect(mailer.send({ to: 'ana@example.com\r\nBcc: all@example.com', subject: 'Hi', text: 'x' })).rejects.toBeInstanceOf(MailRefused);
    await expect(mailer.send({ to: 'ana@example.com, eve@example.com', subject: 'Hi', text: 'x' })).rejects.toBeInstanceOf(MailRefused);
    expect(readdirSync(dir)).toEqual([]);
    t = await startInbox();
  });
});

describe('POST /v1/email/inbound', () => {
  it('a new sender starts a message conversation on channel email; the same Message-ID twice is one', async () => {
    t = await startInbox();
    await setSecret();
    const raw = mime([
      'From: "João Pereira" <joao@example.net>',
      'To: inbox@salon.example',
      'Subject: =?UTF-8?Q?Marca=C3=A7=C3=A3o_para_s=C3=A1bado?=',
      'Message-ID: <first-1@example.net>',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'Ol=C3=A1, t=C3=AAm vaga s=C3=A1bado =C3=A0s 10h?',
    ]);
    const r = await inbound(raw);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toMatchObject({ ok: true, created: true, duplicate: false });
    const item = await t.owner('GET', `/v1/owner/items/${r.body.item_id}`);
    expect(item.body).toMatchObject({ type: 'message', channel: 'email', contact: { name: 'João Pereira', email: 'joao@example.net' }, payload: { subject: 'Marcação para sábado' } });
    expect(item.body.conversation[0]).toMatchObject({ channel: 'email', authorKind: 'customer_human' });
    expect(item.body.conversation[0].text).toContain('têm vaga sábado às 10h?');
    const again = await inbound(raw);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ item_id: r.body.item_id, duplicate: true });
    expect((await t.owner('GET', '/v1/owner/items?type=message')).body.items).toHaveLength(1);
  });

  it('a reply to a notice lands on its item, by reply address or by In-Reply-To from the customer', async () => {
    const smtp = await withSmtp();
    await setSecret();
    const created = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-11-24T10:00:00Z') });
    await t.owner('POST', `/v1/owner/items/${created.body.id}/replies`, { body: { message: 'Which colour?' } });
    await t.inbox.jobs.runDue();
    const notice = await PostalMime.parse(smtp.received[0]!.raw);
    const replyTo = notice.replyTo![0]!.address as string;
    const byAddress = await inbound(mime([`From: Ana <ana@example.com>`, `To: ${replyTo}`, 'Subject: Re: reply', 'Message-ID: <r1@example.com>', '', 'Copper, please.']));
    expect(byAddress.status, JSON.stringify(byAddress.body)).toBe(200);
    expect(byAddress.body).toMatchObject({ item_id: created.body.id, created: false });
    const byThread = await inbound(mime([`From: ana@example.com`, 'To: inbox@salon.example', `In-Reply-To: ${notice.messageId}`, 'Message-ID: <r2@example.com>', '', 'And a trim.']));
    expect(byThread.body).toMatchObject({ item_id: created.body.id, created: false });
    // In-Reply-To from someone else is no proof: it starts its own conversation.
    const stranger = await inbound(mime([`From: eve@example.org`, 'To: inbox@salon.example', `In-Reply-To: ${notice.messageId}`, 'Message-ID: <r3@example.org>', '', 'Cancel it.']));
    expect(stranger.body).toMatchObject({ created: true });
    // A forged token does not open an item either.
    const forged = await inbound(mime([`From: eve@example.org`, `To: inbox+r-${created.body.id.toLowerCase()}-aaaaaaaaaaaaaaaa@salon.example`, 'Message-ID: <r4@example.org>', '', 'Cancel.']));
    expect(forged.body).toMatchObject({ created: true });
    const item = await t.owner('GET', `/v1/owner/items/${created.body.id}`);
    const texts = item.body.conversation.map((m: { text: string }) => m.text);
    expect(texts).toEqual(expect.arrayContaining(['Copper, please.', 'And a trim.']));
    expect(texts.join()).not.toContain('Cancel');
  });

  it('reads HTML-only, multipart with attachments and ISO-8859-1 mail', async () => {
    t = await startInbox();
    await setSecret();
    const html = await inbound(
      mime(['From: a@example.com', 'Subject: html', 'Message-ID: <h@example.com>', 'Content-Type: text/html; charset=utf-8', '', '<html><head><style>p{}</style></head><body><p>Hello <b>there</b></p><script>alert(1)</script><p>Tom &amp; Jerry</p></body></html>']),
    );
    const multipart = await inbound(
      mime([
        'From: b@example.com',
        'Subject: with photo',
        'Message-ID: <m@example.com>',
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="XYZ"',
        '',
        '--XYZ',
        'Content-Type: text/plain; charset=utf-8',
        '',
        'Like this one.',
        '--XYZ',
        'Content-Type: image/png; name="hair.png"',
        'Content-Disposition: attachment; filename="hair.png"',
        'Content-Transfer-Encoding: base64',
        '',
        Buffer.from('not really a png').toString('base64'),
        '--XYZ--',
        '',
      ]),
    );
    const latin = await inbound(
      Buffer.concat([
        Buffer.from(mime(['From: c@example.com', 'Subject: =?ISO-8859-1?Q?Ol=E1?=', 'Message-ID: <l@example.com>', 'Content-Type: text/plain; charset=iso-8859-1', 'Content-Transfer-Encoding: 8bit', '', ''])),
        Buffer.from('Amanhã às 9h, por favor.', 'latin1'),
      ]),
    );
    for (const r of [html, multipart, latin]) expect(r.status, JSON.stringify(r.body)).toBe(201);
    const text = async (id: string) => (await t.owner('GET', `/v1/owner/items/${id}`)).body.conversation[0].text as string;
    const htmlText = await text(html.body.item_id);
    expect(htmlText).toContain('Hello there');
    expect(htmlText).toContain('Tom & Jerry');
    expect(htmlText).not.toContain('alert');
    expect(await text(multipart.body.item_id)).toMatch(/Like this one\.[\s\S]*\[attachment: hair\.png \(image\/png, 16 bytes\), not kept\]/);
    expect(await text(latin.body.item_id)).toContain('Amanhã às 9h, por favor.');
    expect((await t.owner('GET', `/v1/owner/items/${latin.body.item_id}`)).body.payload.subject).toBe('Olá');
  });

  it('refuses a missing or wrong secret, a door that is off, broken and oversized MIME: nothing is written', async () => {
    t = await startInbox();
    const ok = mime(['From: a@example.com', 'Message-ID: <x@example.com>', '', 'hi']);
    expectProblem(await inbound(ok), 403, 'not_allowed');
    await setSecret();
    expectProblem(await inbound(ok, {}), 401, 'unauthorized');
    expectProblem(await inbound(ok, { 'x-inbox-email-secret': `${SECRET}x` }), 401, 'unauthorized');
    expectProblem(await inbound('this is not a mail at all, just words\r\n'), 400, 'bad_request');
    expectProblem(await inbound(mime(['Subject: no sender', '', 'hi'])), 400, 'bad_request');
    expectProblem(await inbound(mime(['From: a@example.com', ...Array.from({ length: 400 }, (_, i) => `X-H${i}: v`), '', 'hi'])), 413, 'payload_too_large');
    const attachments = Array.from({ length: 25 }, (_, i) => ['--B', `Content-Type: text/plain; name="f${i}.txt"`, `Content-Disposition: attachment; filename="f${i}.txt"`, '', 'x']).flat();
    expectProblem(await inbound(mime(['From: a@example.com', 'Content-Type: multipart/mixed; boundary="B"', '', ...attachments, '--B--'])), 413, 'payload_too_large');
    const huge = Buffer.concat([Buffer.from(mime(['From: a@example.com', '', ''])), Buffer.alloc(11 * 1024 * 1024, 'a')]);
    expectProblem(await inbound(huge), 413, 'payload_too_large');
    expect((await t.owner('GET', '/v1/owner/items?type=message')).body.items).toHaveLength(0);
    // A display name carrying a line break (encoded word) is kept on one line.
    const injected = await inbound(mime(['From: =?UTF-8?B?' + Buffer.from('Eve\r\nBcc: x@example.com').toString('base64') + '?= <eve@example.org>', 'Message-ID: <i@example.org>', '', 'hi']));
    expect(injected.status).toBe(201);
    const item = await t.owner('GET', `/v1/owner/items/${injected.body.item_id}`);
    expect(item.body.contact.name).toBe('Eve Bcc: x@example.com');
  });
});
