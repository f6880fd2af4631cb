/**
 * verify_customer (issue 15, docs/identity.md): six digits to the item's address, 202 {sent_to}
 * masked; the code back gives 200 {recognised: strong}; codes hashed, expiring, with limited attempts
 * and sends; the same answers whether the address is known or not; REST and the public MCP door.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import PostalMime from 'postal-mime';
import { startInbox, haircutAt, type TestInbox } from './support/harness.js';
import { expectProblem } from './support/customer-calls.js';

let t: TestInbox;
afterEach(async () => {
  await t?.close();
});

async function book(time: string, email = 'ana@example.com') {
  const r = await t.request('POST', '/v1/bookings', { body: { ...haircutAt(time), contact: { name: 'Ana', email } } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string; accessToken: string; identity: Record<string, unknown> };
}

function verify(item: { id: string; accessToken: string }, code?: string) {
  return t.request('POST', '/v1/customers/verify', { body: { item_id: item.id, ...(code ? { code } : {}) }, headers: { 'x-access-token': item.accessToken } });
}

/** The code in the newest mail of the sink (sent by the job). */
async function lastCode(): Promise<string> {
  await t.inbox.jobs.runDue();
  const folder = join(t.dataDir, 'mail');
  const file = readdirSync(folder).sort().at(-1) as string;
  const mail = await PostalMime.parse(readFileSync(join(folder, file)));
  return /code is (\d{6})/.exec(mail.text ?? '')?.[1] as string;
}

describe('verify_customer', () => {
  it('sends six digits to the item\'s address and proves it with them: strong', async () => {
    t = await startInbox();
    await book('2026-11-24T10:00:00Z');
    const second = await book('2026-11-24T11:00:00Z');
    expect(second.identity).toMatchObject({ recognised: 'weak', verify: { available: true } });
    const sent = await verify(second);
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    expect(sent.body).toEqual({ sent_to: 'a***@e***.com', expires_in: 600 });
    const code = await lastCode();
    expect(code).toMatch(/^\d{6}$/);
    const proven = await verify(second, code);
    expect(proven.status).toBe(200);
    expect(proven.body).toEqual({ recognised: 'strong', email_proven: true });
    expectProblem(await verify(second), 409, 'already_verified');
    const owner = await t.owner('GET', `/v1/owner/items/${second.id}`);
    expect(owner.body.customer).toMatchObject({ match: 'strong', email_proven: true, known: true });
    // The code is kept only as a keyed hash; the mail's text is forgotten once sent.
    const dump = readFileSync(join(t.dataDir, 'inbox.sqlite')).toString('latin1');
    expect(dump).not.toContain(`code is ${code}`);
  });

  it('answers the same whether the business knows the address or not', async () => {
    t = await startInbox();
    const stranger = await book('2026-11-24T10:00:00Z', 'new@example.org');
    expect(stranger.identity).toMatchObject({ recognised: 'none' });
    const sent = await verify(stranger);
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({ sent_to: 'n***@e***.org', expires_in: 600 });
    expect((await verify(stranger, await lastCode())).body).toEqual({ recognised: 'strong', email_proven: true });
  });

  it('a wrong code spends an attempt (kept even though refused); five wrong ones end the code', async () => {
    t = await startInbox();
    const item = await book('2026-11-24T10:00:00Z');
    await verify(item);
    const code = await lastCode();
    const wrong = code === '000000' ? '111111' : '000000';
    for (let left = 4; left >= 0; left -= 1) {
      const r = await verify(item, wrong);
      expectProblem(r, 422, 'bad_code');
      expect(r.body.attempts_left).toBe(left);
    }
    expectProblem(await verify(item, code), 429, 'too_many_attempts');
    // A new code starts afresh.
    await verify(item);
    expect((await verify(item, await lastCode())).status).toBe(200);
  });

  it('a wrong code retried with the same idempotency key is judged again, not replayed', async () => {
    t = await startInbox();
    const item = await book('2026-11-24T10:00:00Z');
    await verify(item);
    const code = await lastCode();
    const wrong = code === '000000' ? '111111' : '000000';
    const send = () => t.request('POST', '/v1/customers/verify', { body: { item_id: item.id, code: wrong, idempotency_key: 'v-1' }, headers: { 'x-access-token': item.accessToken } });
    expect((await send()).body.attempts_left).toBe(4);
    expect((await send()).body.attempts_left).toBe(3);
  });

  it('codes expire; sends are limited; nothing to verify without an address or before a code', async () => {
    t = await startInbox();
    const item = await book('2026-11-24T10:00:00Z');
    expectProblem(await verify(item, '123456'), 409, 'nothing_to_verify');
    await verify(item);
    const code = await lastCode();
    t.clock.advance(11 * 60_000);
    expectProblem(await verify(item, code), 422, 'code_expired');
    expect((await verify(item)).status).toBe(202);
    expect((await verify(item)).status).toBe(202);
    const limited = await verify(item);
    expectProblem(limited, 429, 'too_many_attempts');
    expect(limited.headers.get('retry-after')).toBe('3600');

    const message = await t.request('POST', '/v1/messages', { body: { message: 'Do you sell gift cards?' } });
    expectProblem(await verify({ id: message.body.id, accessToken: message.body.accessToken }), 409, 'nothing_to_verify');
    expectProblem(await t.request('POST', '/v1/customers/verify', { body: { item_id: item.id } }), 401, 'unauthorized');
    expectProblem(await verify(item, '12345'), 422, 'invalid_input');
  });

  it('is a tool of the public MCP door', async () => {
    t = await startInbox();
    const item = await book('2026-11-24T10:00:00Z');
    const r = await t.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'verify_customer', arguments: { item_id: item.id, access_token: item.accessToken } } },
      headers: { accept: 'application/json, text/event-stream' },
    });
    const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
    expect(text).toContain('a***@e***.com');
  });
});
