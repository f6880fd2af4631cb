/**
 * Public reads kept in memory (operations/kept-answers.ts, issue 11): the profile, services,
 * products and availability are answered with the same bytes and ETag while nothing they were read
 * from changes, and never outlive a change: the owner's writes, bookings, the passing of time
 * (availability's notice), and a write to the database by another process all show on the next call.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rawRows } from '../../../test-support/test-database.js';
import { startInbox, type TestInbox } from './support/harness.js';

let t: TestInbox;
beforeEach(async () => {
  t = await startInbox();
});
afterEach(async () => {
  await t.close();
});

const TUESDAY = '/v1/availability?service=beard-trim&from=2026-11-24&to=2026-11-24';

async function tagged(path: string): Promise<{ etag: string; body: any }> {
  const r = await t.request('GET', path);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { etag: r.headers.get('etag')!, body: r.body };
}

describe('public reads kept in memory', () => {
  it('answer the same bytes and tag while nothing changes, and 304 to that tag', async () => {
    for (const path of ['/v1/business', '/v1/services', '/v1/products', '/v1/products?q=shampoo', TUESDAY]) {
      const first = await t.request('GET', path);
      const second = await t.request('GET', path);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
      const again = await t.request('GET', path, { headers: { 'if-none-match': first.headers.get('etag')! } });
      expect(again.status, path).toBe(304);
    }
    // Another page is another answer.
    const page = await tagged('/v1/services?limit=2');
    expect(page.body.items).toHaveLength(2);
    expect(page.body.next_cursor).toEqual(expect.any(String));
    expect((await tagged('/v1/services')).body.items.length).toBeGreaterThan(2);
  });

  it('show the owner\'s changes to the profile, services, products and schedule at once', async () => {
    const business = await tagged('/v1/business');
    expect((await t.owner('PATCH', '/v1/owner/profile', { body: { profile: { name: 'Salão Aurora & Filhos' } } })).status).toBe(200);
    const renamed = await tagged('/v1/business');
    expect(renamed.body.name).toBe('Salão Aurora & Filhos');
    expect(renamed.etag).not.toBe(business.etag);

    const services = await tagged('/v1/services');
    const service = { id: 'beard-trim', name: 'Beard trim', durationMinutes: 20, priceModel: 'fixed', price: 1200, slotStepMinutes: 10, description: 'With hot towel.' };
    expect((await t.owner('POST', '/v1/owner/services', { body: { service } })).status).toBe(200);
    const changed = await tagged('/v1/services');
    expect(changed.body.items.find((s: { id: string }) => s.id === 'beard-trim').description).toBe('With hot towel.');
    expect(changed.etag).not.toBe(services.etag);

    const products = await tagged('/v1/products?q=comb');
    expect(products.body.items).toHaveLength(1);
    expect((await t.owner('DELETE', '/v1/owner/products/wooden-comb')).status).toBe(200);
    expect((await tagged('/v1/products?q=comb')).body.items).toEqual([]);

    const tuesday = await tagged(TUESDAY);
    expect(tuesday.body.slots.length).toBeGreaterThan(0);
    expect((await t.owner('PUT', '/v1/owner/availability/closures', { body: { closures: [{ startDate: '2026-11-24', endDate: '2026-11-24' }] } })).status).toBe(200);
    expect((await tagged(TUESDAY)).body.slots).toEqual([]);
    expect((await t.owner('PUT', '/v1/owner/availability/closures', { body: { closures: [] } })).status).toBe(200);
    expect((await tagged(TUESDAY)).body.slots).toEqual(tuesday.body.slots);
    expect((await t.owner('PUT', '/v1/owner/availability/hours', { body: { openingHours: [{ dayOfWeek: 2, opens: '15:00', closes: '16:00' }] } })).status).toBe(200);
    expect((await tagged(TUESDAY)).body.slots[0].start).toMatch(/T15:00/);
  });

  it('availability follows a confirmed booking at once, and the notice period as time passes', async () => {
    const before = await tagged(TUESDAY);
    const starts = before.body.slots.map((s: { start: string }) => s.start);
    expect(starts.slice(0, 3)).toEqual(['2026-11-24T09:30:00+00:00', '2026-11-24T09:40:00+00:00', '2026-11-24T09:50:00+00:00'].map((s) => expect.stringMatching(s.slice(0, 16))));
    const booked = await t.request('POST', '/v1/bookings', { body: { payload: { serviceId: 'beard-trim', startTime: starts[0] }, contact: { name: 'Rui', email: 'rui@example.com' } } });
    expect(booked.status, JSON.stringify(booked.body)).toBe(201);
    // A requested booking holds no slot; a confirmed one does.
    expect((await tagged(TUESDAY)).body.slots[0].start).toBe(starts[0]);
    const confirmed = await t.owner('POST', `/v1/owner/items/${booked.body.id}/transitions`, { body: { event: 'confirm' } });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    const after = await tagged(TUESDAY);
    expect(after.body.slots[0].start).toMatch(/T09:50/);
    expect(after.etag).not.toBe(before.etag);

    // 60 minutes' notice: 09:50 is offered up to 08:50 exactly, and not a millisecond later.
    t.clock.set('2026-11-24T08:50:00Z');
    expect((await tagged(TUESDAY)).body.slots[0].start).toMatch(/T09:50/);
    t.clock.advance(1);
    expect((await tagged(TUESDAY)).body.slots[0].start).toMatch(/T10:00/);
  });

  it('show a write another process made to the database', async () => {
    expect((await tagged('/v1/services')).body.items.find((s: { id: string }) => s.id === 'haircut').name).toBe('Haircut');
    // Another connection to the database (a process of its own on PostgreSQL, the file on SQLite).
    await rawRows('inbox', t.dataDir, "UPDATE services SET name = 'Haircut and wash' WHERE id = 'haircut'");
    expect((await tagged('/v1/services')).body.items.find((s: { id: string }) => s.id === 'haircut').name).toBe('Haircut and wash');
  });

  it('the owner\'s list shows a new item and a move at once', async () => {
    const before = await t.owner('GET', '/v1/owner/items');
    expect(before.status).toBe(200);
    const created = await t.request('POST', '/v1/messages', { body: { message: 'Are you open on Sunday?', contact: { name: 'Eva', email: 'eva@example.com' } } });
    expect(created.status).toBe(201);
    const listed = await t.owner('GET', '/v1/owner/items');
    expect(listed.body.items[0]).toMatchObject({ id: created.body.id, state: 'open' });
    expect(listed.body.items.length).toBe(before.body.items.length + 1);
    // A conversation is never final: closed, it stays in the open list with its new state.
    expect((await t.owner('POST', `/v1/owner/items/${created.body.id}/transitions`, { body: { event: 'close' } })).status).toBe(200);
    expect((await t.owner('GET', '/v1/owner/items')).body.items[0]).toMatchObject({ id: created.body.id, state: 'closed', version: 2 });
    expect((await t.owner('GET', '/v1/owner/items?state=open')).body.items.map((i: { id: string }) => i.id)).not.toContain(created.body.id);
  });

  it('never keep what a rolled-back transaction wrote', async () => {
    const { loadProfile } = await import('../src/domain/context.js');
    const store = t.inbox.store;
    const before = await loadProfile(store);
    await expect(
      store.transaction(async (tx) => {
        const current = await tx.business.get();
        expect(await tx.business.put({ ...current!.document, name: 'Never committed' }, current!.version, t.clock.now())).toBe(true);
        // Read (and kept) inside the transaction, then rolled back.
        expect((await loadProfile(tx)).profile.name).toBe('Never committed');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await loadProfile(store)).profile.name).toBe(before.profile.name);
    expect((await tagged('/v1/business')).body.name).toBe(before.profile.name);
  });

  it('answer MCP calls with the same content as REST', async () => {
    const rest = await tagged('/v1/services');
    const mcp = await t.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_services', arguments: {} } },
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    });
    expect(mcp.status).toBe(200);
    expect(mcp.body.result.structuredContent).toEqual(rest.body);
  });
});
