import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haircutAt, startInbox, type TestInbox } from './support/harness.js';

describe('an inbox started with the demo business', () => {
  let t: TestInbox;
  beforeAll(async () => {
    t = await startInbox();
  });
  afterAll(() => t.close());

  it('answers health with its version', async () => {
    const r = await t.request('GET', '/healthz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, version: expect.any(String) });
  });

  it('takes a booking and lets the owner confirm it', async () => {
    const created = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-11-24T10:00:00Z') });
    expect(created.status).toBe(201);
    expect(created.body.state).toBe('requested');
    const moved = await t.owner('POST', `/v1/owner/items/${created.body.id}/transitions`, { body: { event: 'confirm' } });
    expect(moved.status).toBe(200);
    expect(moved.body.state).toBe('confirmed');
    expect(moved.body.version).toBe(2);
  });
});
