/**
 * About ten calls a second per integration key (inbox spec §8): 429 rate_limited with Retry-After
 * in whole seconds, recovery as the (test) clock moves, one bucket per key, and no limit for the
 * owner's key. The bucket itself is checked with other rates too.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEY_BURST, KeyRateLimiter } from '../src/domain/access/rate-limiter.js';
import { TestClock, startInbox, type TestInbox } from './support/harness.js';
import { makeKey, withKey } from './support/integration-keys.js';

describe('rate limit of integration keys over HTTP', () => {
  let t: TestInbox;
  beforeEach(async () => {
    t = await startInbox({ seed: false });
  });
  afterEach(() => t.close());

  const burst = async (call: ReturnType<typeof withKey>, n: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i += 1) statuses.push((await call('GET', '/v1/owner/items')).status);
    return statuses;
  };

  it('answers 429 with Retry-After after about ten calls at once, and recovers as time passes', async () => {
    const k = await makeKey(t, 'automation');
    const call = withKey(t, k.key);
    expect(await burst(call, KEY_BURST)).toEqual(Array(KEY_BURST).fill(200));

    const limited = await call('GET', '/v1/owner/items');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toContain('application/problem+json');
    expect(limited.body).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(limited.headers.get('retry-after')).toBe('1');

    // A tenth of a second gives one call back, no more.
    t.clock.advance(100);
    expect(await burst(call, 2)).toEqual([200, 429]);
    // A second refills the bucket, but never beyond its size.
    t.clock.advance(5_000);
    expect(await burst(call, KEY_BURST + 1)).toEqual([...Array(KEY_BURST).fill(200), 429]);
  });

  it('a limited write is not carried out', async () => {
    const k = await makeKey(t, 'automation');
    const call = withKey(t, k.key);
    await burst(call, KEY_BURST);
    const write = await call('PUT', '/v1/owner/settings', { body: { settings: { orders: { payDays: 3 } } } });
    expect(write.status).toBe(429);
    expect((await t.owner('GET', '/v1/owner/settings')).body.settings.orders.payDays).toBe(14);
  });

  it('each key has its own bucket; the owner key is not limited', async () => {
    const a = withKey(t, (await makeKey(t, 'automation', 'A')).key);
    const b = withKey(t, (await makeKey(t, 'read_only', 'B')).key);
    expect(await burst(a, KEY_BURST + 1)).toEqual([...Array(KEY_BURST).fill(200), 429]);
    expect(await burst(b, KEY_BURST)).toEqual(Array(KEY_BURST).fill(200));
    const owner = withKey(t, t.ownerKey);
    expect(await burst(owner, 3 * KEY_BURST)).toEqual(Array(3 * KEY_BURST).fill(200));
  });

  it('a refused key does not spend anything (401 comes first)', async () => {
    const call = withKey(t, 'svc_own_not-a-key');
    expect(await burst(call, KEY_BURST + 2)).toEqual(Array(KEY_BURST + 2).fill(401));
  });
});

describe('the token bucket', () => {
  it('gives Retry-After in whole seconds, at least one, from the refill rate', () => {
    const clock = new TestClock();
    const slow = new KeyRateLimiter(clock, 2, 0.25);
    expect(slow.take('k')).toMatchObject({ allowed: true, standing: { quota: 2, windowSec: 8, remaining: 1 } });
    expect(slow.take('k')).toMatchObject({ allowed: true, standing: { remaining: 0, resetSec: 8 } });
    expect(slow.take('k')).toMatchObject({ allowed: false, retryAfterSec: 4 });
    clock.advance(3_000);
    expect(slow.take('k')).toMatchObject({ allowed: false, retryAfterSec: 1 });
    clock.advance(1_000);
    expect(slow.take('k')).toMatchObject({ allowed: true });
  });

  it('a clock set back refills nothing and takes nothing away', () => {
    const clock = new TestClock();
    const limiter = new KeyRateLimiter(clock, 1, 1);
    expect(limiter.take('k').allowed).toBe(true);
    clock.advance(-10_000);
    expect(limiter.take('k').allowed).toBe(false);
    clock.advance(1_000);
    expect(limiter.take('k').allowed).toBe(true);
  });
});
