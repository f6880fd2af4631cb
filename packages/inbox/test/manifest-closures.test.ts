/**
 * Closures "that have not ended" are judged in the business's own time zone (issue 20): an inbox in
 * Pacific/Honolulu (UTC-10) with a closure for its local today publishes it in the manifest while
 * the UTC date is already tomorrow, as long as its availability offers nothing that day; and drops it
 * once its local day has ended.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock, startInbox, type TestInbox } from './support/harness.js';

let t: TestInbox;
// Monday 2026-11-23 19:00 in Honolulu; already Tuesday 05:00 in UTC.
const clock = new TestClock('2026-11-24T05:00:00Z');

const EVERY_DAY = [1, 2, 3, 4, 5, 6, 7].map((dayOfWeek) => ({ dayOfWeek, opens: '06:00', closes: '23:00' }));

async function manifestClosures(): Promise<unknown> {
  const r = await t.request('GET', '/.well-known/agent-inbox.json');
  expect(r.status).toBe(200);
  return r.body.profile.hours.closures;
}

async function slotsOn(date: string): Promise<unknown[]> {
  const r = await t.request('GET', `/v1/availability?service=haircut&from=${date}&to=${date}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.slots;
}

beforeAll(async () => {
  t = await startInbox({ clock });
  expect((await t.owner('PATCH', '/v1/owner/profile', { body: { profile: { timeZone: 'Pacific/Honolulu' } } })).status).toBe(200);
  expect((await t.owner('PUT', '/v1/owner/availability/hours', { body: { openingHours: EVERY_DAY } })).status).toBe(200);
});

afterAll(() => t.close());

describe('the manifest\'s closures, in the business\'s own time zone', () => {
  it('without a closure, the local evening offers times', async () => {
    expect((await t.owner('PUT', '/v1/owner/availability/closures', { body: { closures: [] } })).status).toBe(200);
    expect(await manifestClosures()).toEqual([]);
    expect((await slotsOn('2026-11-23')).length).toBeGreaterThan(0);
  });

  it('publishes a closure for the local today while the UTC date is tomorrow, and the availability offers nothing that day', async () => {
    const set = await t.owner('PUT', '/v1/owner/availability/closures', { body: { closures: [{ startDate: '2026-11-23', endDate: '2026-11-23', reason: 'Staff day' }] } });
    expect(set.status).toBe(200);
    expect(await manifestClosures()).toEqual([{ from: '2026-11-23', to: '2026-11-23' }]);
    expect(await slotsOn('2026-11-23')).toEqual([]);
  });

  it('keeps it until the last minute of the local day, and drops it once the local day has ended', async () => {
    clock.set('2026-11-24T09:59:00Z'); // 23:59 in Honolulu
    expect(await manifestClosures()).toEqual([{ from: '2026-11-23', to: '2026-11-23' }]);
    clock.set('2026-11-24T10:00:00Z'); // Tuesday 00:00 in Honolulu
    expect(await manifestClosures()).toEqual([]);
    expect((await slotsOn('2026-11-24')).length).toBeGreaterThan(0);
  });

  it('a zone ahead of UTC drops a closure on its own midnight, before the UTC date turns', async () => {
    expect((await t.owner('PATCH', '/v1/owner/profile', { body: { profile: { timeZone: 'Pacific/Kiritimati' } } })).status).toBe(200); // UTC+14
    expect((await t.owner('PUT', '/v1/owner/availability/closures', { body: { closures: [{ startDate: '2026-11-24', endDate: '2026-11-24' }] } })).status).toBe(200);
    clock.set('2026-11-24T09:59:00Z'); // 23:59 on the 24th in Kiritimati
    expect(await manifestClosures()).toEqual([{ from: '2026-11-24', to: '2026-11-24' }]);
    clock.set('2026-11-24T10:00:00Z'); // 00:00 on the 25th there, still the 24th in UTC
    expect(await manifestClosures()).toEqual([]);
  });
});
