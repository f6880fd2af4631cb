/**
 * Kept public reads answered in front of the framework (shared/src/http/answer-replay.ts, docs/http.md
 * "Answers replayed"): a repeated read gets the very answer Fastify gave (status, headers, bytes, in
 * each coding), its own RateLimit headers and log line, and never a stale one; requests that carry
 * anything a hook acts on go through the framework as before. On PostgreSQL nothing is kept across
 * reads (another process may write), so nothing is replayed there: the SQLite run tests it.
 */
import { answerReplayOf } from '@svc/shared';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { keptHeaders, rawRequest, type RawAnswer } from '../../../test-support/raw-http.js';
import { onPostgres } from '../../../test-support/test-database.js';
import { TestClock, startInbox, type TestInbox } from './support/harness.js';

const raw = (t: TestInbox, method: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> => rawRequest(t.baseUrl, method, path, headers);

let t: TestInbox;
afterEach(async () => {
  await t?.close();
});

const replayed = () => answerReplayOf(t.inbox.http)!.replayed;

describe.skipIf(onPostgres)('kept public reads replayed in front of the framework', () => {
  it('answer a repeated read with the very status, headers and bytes, in every coding', async () => {
    t = await startInbox();
    for (const path of ['/v1/services', '/v1/business', '/v1/products?q=shampoo', '/v1/availability?service=beard-trim&from=2026-11-24&to=2026-11-24']) {
      for (const coding of [undefined, 'br', 'gzip']) {
        const headers: Record<string, string> = coding ? { 'accept-encoding': coding } : {};
        const first = await raw(t, 'GET', path, headers);
        expect(first.status, path).toBe(200);
        const before = replayed();
        const second = await raw(t, 'GET', path, headers);
        expect(replayed(), `${path} ${coding}`).toBe(before + 1);
        expect(second.status).toBe(200);
        expect(keptHeaders(second)).toEqual(keptHeaders(first));
        expect(second.body.equals(first.body)).toBe(true);
      }
    }
    // A coded answer is replayed in its coding.
    const br = await raw(t, 'GET', '/v1/services', { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.etag).toMatch(/-br"$/);
  });

  it('never replay an answer what it was built from no longer holds: the owner\'s change, and the time for availability', async () => {
    t = await startInbox();
    await raw(t, 'GET', '/v1/services');
    const stale = await raw(t, 'GET', '/v1/services');
    const service = { id: 'beard-trim', name: 'Beard trim', durationMinutes: 20, priceModel: 'fixed', price: 1200, slotStepMinutes: 10, description: 'With hot towel.' };
    expect((await t.owner('POST', '/v1/owner/services', { body: { service } })).status).toBe(200);
    const before = replayed();
    const fresh = await raw(t, 'GET', '/v1/services');
    expect(replayed()).toBe(before);
    expect(fresh.headers.etag).not.toBe(stale.headers.etag);
    expect(JSON.parse(fresh.body.toString()).items.find((s: { id: string }) => s.id === 'beard-trim').description).toBe('With hot towel.');
    // The new answer is the one replayed from then on.
    const again = await raw(t, 'GET', '/v1/services');
    expect(replayed()).toBe(before + 1);
    expect(again.body.equals(fresh.body)).toBe(true);

    // Availability holds until its first start falls inside the notice period (Tuesday morning in Lisbon).
    await t.close();
    t = await startInbox({ clock: new TestClock('2026-11-24T08:30:00Z') });
    const path = '/v1/availability?service=beard-trim&from=2026-11-24&to=2026-11-24';
    const morning = JSON.parse((await raw(t, 'GET', path)).body.toString());
    expect(morning.slots.length).toBeGreaterThan(0);
    await raw(t, 'GET', path);
    const replays = replayed();
    t.clock.advance(4 * 3_600_000);
    const afternoon = JSON.parse((await raw(t, 'GET', path)).body.toString());
    expect(replayed()).toBe(replays);
    expect(afternoon.slots.length).toBeLessThan(morning.slots.length);
  });

  it('leave to the framework every request a hook or route acts on', async () => {
    t = await startInbox();
    const first = await raw(t, 'GET', '/v1/services');
    const before = replayed();
    expect((await raw(t, 'GET', '/v1/services', { 'if-none-match': String(first.headers.etag) })).status).toBe(304);
    expect((await raw(t, 'HEAD', '/v1/services')).status).toBe(200);
    const actedOn: Record<string, string>[] = [{ authorization: 'Bearer svc_own_nothing' }, { origin: 'https://agent.example' }, { cookie: 'a=b' }, { 'x-forwarded-for': '203.0.113.9' }];
    for (const headers of actedOn) {
      const answer = await raw(t, 'GET', '/v1/services', headers);
      expect(answer.status, JSON.stringify(headers)).toBe(200);
      expect(answer.body.equals(first.body)).toBe(true);
    }
    // A pass is read (and this one refused) on every request that presents one.
    expect((await raw(t, 'GET', '/v1/services', { 'svc-pass': 'svcpass1_x' })).status).toBe(422);
    expect(replayed()).toBe(before);
    // Errors and other routes are never kept.
    await raw(t, 'GET', '/v1/services?limit=0');
    expect((await raw(t, 'GET', '/v1/services?limit=0')).status).toBe(422);
    expect(replayed()).toBe(before);
  });

  it('count replayed reads against the address\'s burst budget, each with its own RateLimit, and refuse past it', async () => {
    // 600 reads a minute at scale 1: 6 at this scale.
    t = await startInbox({ rateLimit: 0.01 });
    const remaining: string[] = [];
    for (let i = 0; i < 6; i++) {
      const answer = await raw(t, 'GET', '/v1/products');
      expect(answer.status).toBe(200);
      expect(answer.headers['ratelimit-policy']).toBe('"read";q=6;w=60');
      remaining.push(String(answer.headers.ratelimit).replace(/;t=\d+$/, ''));
    }
    expect(remaining).toEqual(['"read";r=5', '"read";r=4', '"read";r=3', '"read";r=2', '"read";r=1', '"read";r=0']);
    expect(replayed()).toBe(5);
    const refused = await raw(t, 'GET', '/v1/products');
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(refused.body.toString())).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(replayed()).toBe(5);
  });

  it('answer pipelined and concurrent replayed reads each with its own answer, in the order asked', async () => {
    t = await startInbox();
    const paths = ['/v1/services', '/v1/business', '/v1/products'];
    const expected = new Map<string, Buffer>();
    for (const path of paths) {
      await raw(t, 'GET', path);
      expected.set(path, (await raw(t, 'GET', path)).body);
    }
    const before = replayed();
    // Five requests in one write on one connection: their answers are held to the end of the pass
    // together, and must still come back one per request, in order.
    const asked = ['/v1/business', '/v1/services', '/v1/products', '/v1/services', '/v1/business'];
    const answers = await pipelined(t.baseUrl, asked);
    expect(answers.map((answer) => answer.status)).toEqual(asked.map(() => 200));
    expect(answers.map((answer) => answer.body.toString())).toEqual(asked.map((path) => expected.get(path)!.toString()));
    // Many connections at once: each gets the answer to what it asked.
    const many = Array.from({ length: 30 }, (_, i) => paths[i % paths.length]!);
    const concurrent = await Promise.all(many.map((path) => raw(t, 'GET', path)));
    concurrent.forEach((answer, i) => expect(answer.body.equals(expected.get(many[i]!)!), many[i]).toBe(true));
    expect(replayed()).toBe(before + asked.length + many.length);
  });

  it('write each replayed request\'s log line, in the framework\'s shape and id sequence', async () => {
    const lines: string[] = [];
    t = await startInbox({ logStream: { write: (line: string) => void lines.push(line) } });
    const start = lines.length;
    for (let i = 0; i < 4; i++) await raw(t, 'GET', '/v1/services?access_token=svc_tok_secretvalue');
    const logged = lines
      .slice(start)
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.includes('"request completed"'))
      .map((line) => JSON.parse(line) as { reqId: string; req: { method: string; url: string }; res: { statusCode: number } });
    expect(replayed()).toBe(3);
    expect(logged).toHaveLength(4);
    expect(logged.map((line) => [line.req.method, line.req.url, line.res.statusCode])).toEqual(
      Array.from({ length: 4 }, () => ['GET', '/v1/services?access_token=[redacted]', 200]),
    );
    expect(Object.keys(logged[3]!)).toEqual(Object.keys(logged[0]!));
    expect(new Set(logged.map((line) => line.reqId)).size).toBe(4);
    expect(lines.join('')).not.toContain('secretvalue');
  });
});

/** GETs written at once on one connection (HTTP/1.1 pipelining); their answers' statuses and bodies as read back. */
function pipelined(baseUrl: string, paths: readonly string[]): Promise<{ status: number; body: Buffer }[]> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let received = Buffer.alloc(0);
    const answers: { status: number; body: Buffer }[] = [];
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      for (;;) {
        const end = received.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = received.subarray(0, end).toString('latin1');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
        if (!Number.isInteger(length)) return reject(new Error(`answer without a length: ${head}`));
        if (received.length < end + 4 + length) return;
        answers.push({ status: Number(head.split(' ')[1]), body: received.subarray(end + 4, end + 4 + length) });
        received = received.subarray(end + 4 + length);
        if (answers.length === paths.length) {
          socket.end();
          return resolve(answers);
        }
      }
    });
    socket.write(paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`).join(''));
  });
}
