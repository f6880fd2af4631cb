/**
 * The owner's day over HTTP (docs/web.md "Today", "The calendar", "A full slot"; issue 37): a
 * confirm into a full slot answers 409 slot_taken with the next free starts on REST and on owner
 * MCP alike; the app says the slot is full and proposes a free time in one step; Today lists what
 * waits and the day's bookings by start in the business's zone; the calendar's day has a lane per
 * place and shades closed hours, its week a column per day; a date that is none answers 400.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { haircutAt, startInbox, TestClock, type TestInbox } from './support/harness.js';
import { expectProblem, ownerMove } from './support/customer-calls.js';
import { expectNoInlineCode, signInToApp } from './support/owner-app.js';

const OFFSET_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?[+-]\d{2}:\d{2}$/;

async function book(t: TestInbox, startTime: string, name = 'Ana Silva', extra: Record<string, unknown> = {}): Promise<string> {
  const body = haircutAt(startTime, extra);
  const r = await t.request('POST', '/v1/bookings', { body: { ...body, contact: { ...body.contact, name } } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as string;
}

/** Three requests for the 10:00 haircut of Friday 27 November (capacity 2); two confirmed. */
async function fullFriday(t: TestInbox): Promise<{ third: string }> {
  const at = '2026-11-27T10:00:00Z';
  const [a, b, c] = [await book(t, at, 'Ana Silva'), await book(t, at, 'Bruno Costa'), await book(t, at, 'Carla Dias')];
  await ownerMove(t, a, 'confirm');
  await ownerMove(t, b, 'confirm');
  return { third: c };
}

describe("the owner's day", () => {
  let t: TestInbox;
  beforeEach(async () => {
    // Monday 23 November 2026, 10:00 in Lisbon (UTC in winter).
    t = await startInbox({ clock: new TestClock('2026-11-23T10:00:00Z') });
  });
  afterEach(async () => {
    await t.close();
  });

  it('answers a confirm into a full slot 409 slot_taken with the next free starts, on REST and owner MCP alike', async () => {
    const { third } = await fullFriday(t);
    const rest = await t.owner('POST', `/v1/owner/items/${third}/transitions`, { body: { event: 'confirm' } });
    expectProblem(rest, 409, 'slot_taken');
    const nextFree = rest.body.next_free as { start: string; end: string }[];
    expect(nextFree.length).toBeGreaterThan(0);
    expect(nextFree.length).toBeLessThanOrEqual(5);
    for (const slot of nextFree) {
      expect(slot.start).toMatch(OFFSET_TIME);
      expect(slot.end).toMatch(OFFSET_TIME);
      // None overlaps the full 10:00–10:45.
      const [start, end] = [Date.parse(slot.start), Date.parse(slot.end)];
      expect(end <= Date.parse('2026-11-27T10:00:00Z') || start >= Date.parse('2026-11-27T10:45:00Z')).toBe(true);
    }
    // From the start of the booking's day: the morning's first free time comes first.
    expect(nextFree[0]?.start.slice(0, 10)).toBe('2026-11-27');
    expect(rest.body.availability).toMatch(/^\/v1\/availability\?service=haircut&from=2026-11-27/);
    expect((await t.owner('GET', `/v1/owner/items/${third}`)).body.state).toBe('requested');

    const client = new Client({ name: 'owner-day-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp/owner`), { requestInit: { headers: { authorization: `Bearer ${t.ownerKey}` } } }));
    try {
      const result = await client.callTool({ name: 'transition_item', arguments: { id: third, event: 'confirm' } });
      expect(result.isError).toBe(true);
      const error = (result.structuredContent as { error: Record<string, unknown> }).error;
      expect(error.code).toBe('slot_taken');
      expect(error.next_free).toEqual(nextFree);
      expect(error.availability).toBe(rest.body.availability);
    } finally {
      await client.close();
    }
  });

  it('says a slot is full where Confirm would be, and proposes a next free time in one step', async () => {
    const { third } = await fullFriday(t);
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const page = await app.get(`/app/items/${third}?lang=en`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('This slot is full');
    expect(page.text).not.toMatch(/name="event" value="confirm"/);
    const offers = [...page.text.matchAll(/name="in\.startTime" value="([^"]+)"/g)].map((m) => m[1]);
    expect(offers.length).toBeGreaterThan(0);
    // The time is the app's own words, 24-hour, in the business's zone.
    expect(page.text).toMatch(/Propose Fri, 27 Nov 2026, \d\d:\d\d/);
    expect(page.text).not.toMatch(/\b(AM|PM)\b/);
    expectNoInlineCode(page.text);

    // The first offer, sent as the page has it.
    const form = /<form method="post" action="\/app\/items\/[^"]+\/move"><input type="hidden" name="csrf" value="[^"]+"><input type="hidden" name="idempotency_key" value="([^"]+)"><input type="hidden" name="event" value="propose"><input type="hidden" name="expected_version" value="(\d+)"><input type="hidden" name="in.startTime" value="([^"]+)">/.exec(page.text);
    expect(form).not.toBeNull();
    const sent = await app.post(`/app/items/${third}/move`, { idempotency_key: form![1]!, event: 'propose', expected_version: form![2]!, 'in.startTime': form![3]! });
    expect(sent.status).toBe(303);
    const item = (await t.owner('GET', `/v1/owner/items/${third}`)).body;
    expect(item.state).toBe('proposed');
    const rest = await t.owner('POST', `/v1/owner/items/${third}/transitions`, { body: { event: 'request_info' } });
    expect(rest.status).toBe(200);
    expect(Date.parse(item.payload.proposal.startTime)).toBe(Date.parse(`${form![3]}:00Z`));
  });

  it('answers a Confirm the slot filled meanwhile with the page saying so (409), in Portuguese too', async () => {
    const at = '2026-11-27T10:00:00Z';
    const [a, b, c] = [await book(t, at, 'Ana'), await book(t, at, 'Bruno'), await book(t, at, 'Carla')];
    await ownerMove(t, a, 'confirm');
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const page = await app.get(`/app/items/${c}`);
    const key = /name="idempotency_key" value="([^"]+)"><input type="hidden" name="event" value="confirm"/.exec(page.text)?.[1];
    expect(key).toBeDefined();
    await ownerMove(t, b, 'confirm');
    const sent = await app.post(`/app/items/${c}/move`, { idempotency_key: key!, event: 'confirm', expected_version: '1' });
    expect(sent.status).toBe(409);
    expect(sent.text).toContain('Esta hora está cheia');
    expect(sent.text).toContain('Proponha antes uma das próximas horas livres');
  });

  it("Today: what waits on top, the day's bookings by start in the business's zone, days to move through", async () => {
    const late = await book(t, '2026-11-24T15:00:00Z', 'Zé Late');
    const early = await book(t, '2026-11-24T09:30:00Z', 'Ana Early');
    await ownerMove(t, early, 'confirm');
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const landing = await app.get('/app');
    expect(landing.status).toBe(303);
    expect(landing.headers.get('location')).toBe('/app/today');

    const today = await app.get('/app/today?lang=en');
    expect(today.status).toBe(200);
    expect(today.text).toContain('Today: Monday, 23 November 2026');
    expect(today.text).toContain('No bookings on this day.');
    // Both requests wait for the owner until confirmed: the requested one does.
    expect(today.text).toContain('Needs you (1)');
    expect(today.text).toContain('Zé Late');
    expect(today.text).toContain('href="/app/today?date=2026-11-24" rel="next"');
    expect(today.text).toContain('href="/app/today?date=2026-11-22" rel="prev"');
    expectNoInlineCode(today.text);

    const tomorrow = await app.get('/app/today?date=2026-11-24&lang=en');
    expect(tomorrow.status).toBe(200);
    const agenda = tomorrow.text.slice(tomorrow.text.indexOf('class="agenda"'));
    expect(agenda.indexOf('Ana Early')).toBeGreaterThan(0);
    expect(agenda.indexOf('Ana Early')).toBeLessThan(agenda.indexOf('Zé Late'));
    expect(agenda).toContain('09:30–10:15');
    expect(agenda).toContain('15:00–15:45');
    expect(tomorrow.text).toContain('Open 09:30–13:00, 14:00–19:30');
    void late;

    const pt = await app.get('/app/today?date=2026-11-24&lang=pt');
    expect(pt.text).toContain('terça-feira, 24 de novembro de 2026');
    expect(pt.text).toContain('Marcações');

    for (const bad of ['2026-02-30', '24-11-2026', 'tomorrow', '1999-01-01']) {
      const refused = await app.get(`/app/today?date=${bad}&lang=en`);
      expect(refused.status, bad).toBe(400);
      expect(refused.text).toContain('That is not a date this calendar can show');
    }
  });

  it('Today in the summer time: a booking shows at its Lisbon time, not UTC', async () => {
    t.clock.set('2027-06-01T08:00:00Z');
    const id = await book(t, '2027-06-02T13:00:00Z', 'Summer');
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const day = await app.get('/app/today?date=2027-06-02&lang=en');
    expect(day.text).toContain('14:00–14:45');
    expect(day.text).toContain(`href="/app/items/${id}"`);
  });

  it('the calendar: a day with a lane per place, requests beside them, closed hours shaded; a week with its days; refusals', async () => {
    const at = '2026-11-27T10:00:00Z';
    const [a, b] = [await book(t, at, 'Ana Silva'), await book(t, at, 'Bruno Costa')];
    await book(t, at, 'Carla Dias');
    await ownerMove(t, a, 'confirm');
    await ownerMove(t, b, 'confirm');
    const app = await signInToApp(t.baseUrl, t.ownerKey);

    const day = await app.get('/app/calendar?view=day&date=2026-11-27&lang=en');
    expect(day.status).toBe(200);
    expect(day.text).toContain('<th scope="col" class="place">Haircut · place 1</th>');
    expect(day.text).toContain('<th scope="col" class="place">Haircut · place 2</th>');
    expect(day.text).toContain('Requests (hold no place)');
    // Each confirmed booking in its own lane, three quarter hours long.
    expect([...day.text.matchAll(/<td rowspan="3" class="bk held">/g)]).toHaveLength(2);
    expect([...day.text.matchAll(/<td rowspan="3" class="bk waiting">/g)]).toHaveLength(1);
    // The lunch break is closed.
    expect(day.text).toMatch(/<tr class="off"><th scope="row" class="hour">13:00<span class="visually-hidden"> \(closed\)<\/span><\/th>/);
    expect(day.text).toContain('role="region" tabindex="0"');
    expectNoInlineCode(day.text);

    const week = await app.get('/app/calendar?view=week&date=2026-11-27&lang=en');
    expect(week.status).toBe(200);
    expect(week.text).toContain('Week of Monday, 23 November 2026 to Sunday, 29 November 2026');
    expect([...week.text.matchAll(/href="\/app\/calendar\?date=2026-11-2\d&amp;view=day"/g)].length).toBeGreaterThanOrEqual(7);
    expect(week.text).toContain('Carla Dias');
    expect(week.text).toContain('href="/app/calendar?date=2026-11-30&amp;view=week" rel="next"');
    // Monday and Sunday are closed.
    expect([...week.text.matchAll(/<th scope="col" class="off">/g)]).toHaveLength(2);

    const christmas = await app.get('/app/calendar?view=week&date=2026-12-24&lang=pt');
    expect(christmas.text).toContain('Fechado: Christmas');

    expect((await app.get('/app/calendar?view=month&lang=en')).status).toBe(400);
    const bad = await app.get('/app/calendar?view=week&date=2026-13-01&lang=en');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('That is not a date this calendar can show');
    expect((await app.get('/app/calendar')).status).toBe(200);
  });

  it('tells the history in plain words in the business\u2019s language: no event names, channels or ids', async () => {
    const id = await book(t, '2026-11-24T10:00:00Z', 'Ana Silva');
    await ownerMove(t, id, 'confirm');
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const en = await app.get(`/app/items/${id}?lang=en`);
    const history = (text: string) => text.slice(text.indexOf('class="events"'), text.indexOf('</ol>', text.indexOf('class="events"')));
    expect(history(en.text)).toContain('<strong>Requested</strong> by the customer\u2019s agent');
    expect(history(en.text)).toContain('<strong>Confirmed</strong> by you');
    expect(history(en.text)).toContain('test owner');
    const pt = await app.get(`/app/items/${id}?lang=pt`);
    expect(history(pt.text)).toContain('<strong>Pedido</strong> pelo agente do cliente');
    expect(history(pt.text)).toContain('<strong>Confirmado</strong> por si');
    for (const text of [history(en.text), history(pt.text)]) {
      expect(text).not.toMatch(/booking\.|customer_agent|owner_ui|\brest\b|\bvia\b|\bAM\b|\bPM\b/);
    }
    // Times as the business's language writes them, by the server: day first, 24-hour.
    expect(history(en.text)).toContain('Mon, 23 Nov 2026, 10:00');
    expect(history(pt.text)).toContain('segunda, 23/11/2026, 10:00');
  });

  it('shows the first words of a message in the list, and "needs you" clears once the owner answers (and returns when the customer writes)', async () => {
    const words = 'Olá, queria saber se têm disponibilidade para madeixas no sábado de manhã, e quanto custa mais ou menos um corte com lavagem e secagem para cabelo comprido';
    const created = await t.request('POST', '/v1/messages', { body: { payload: { subject: 'Madeixas' }, contact: { name: 'Rita' }, message: words } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const row = async () => {
      const list = (await app.get('/app/inbox?lang=en')).text;
      const at = list.indexOf(`data-item="${id}"`);
      return list.slice(list.lastIndexOf('<li', at), list.indexOf('</li>', at));
    };
    const before = await row();
    expect(before).toContain('Madeixas · Olá, queria saber se têm disponibilidade para madeixas');
    expect(before).toContain('\u2026');
    expect(before).toContain('Needs you');
    expect((await app.get('/app/today?lang=en')).text).toContain('Olá, queria saber');

    const page = await app.get(`/app/items/${id}?lang=en`);
    const key = /action="\/app\/items\/[^"]+\/reply"><input type="hidden" name="csrf" value="[^"]+"><input type="hidden" name="idempotency_key" value="([^"]+)">/.exec(page.text)?.[1];
    expect((await app.post(`/app/items/${id}/reply`, { idempotency_key: key!, message: 'Temos sim! Sábado às 10:00?' })).status).toBe(303);
    const after = await row();
    expect(after).not.toContain('Needs you');
    expect(after).toContain('Answered');
    expect((await t.owner('GET', `/v1/owner/items/${id}`)).body.needsHuman).toBe(false);

    const again = await t.request('POST', '/v1/messages', { body: { item_id: id, message: 'Perfeito, obrigada' }, headers: { 'x-access-token': created.body.accessToken } });
    expect(again.status, JSON.stringify(again.body)).toBeLessThan(300);
    expect((await t.owner('GET', `/v1/owner/items/${id}`)).body.needsHuman).toBe(true);
  });

  it("names an order's steps by how it is handed over: collection, sending, or either, in both languages", async () => {
    const created = await t.request('POST', '/v1/orders', { body: { payload: { lines: [{ productId: 'argan-shampoo', quantity: 1 }] }, contact: { name: 'Rui' } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    await ownerMove(t, id, 'accept');
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const buttons = async (lang: string) => [...(await app.get(`/app/items/${id}?lang=${lang}`)).text.matchAll(/<button type="submit" class="primary">([^<]+)<\/button>/g)].map((m) => m[1]);
    expect(await buttons('en')).toContain('Handed over (collected or sent)');

    const settings = await t.owner('PUT', '/v1/owner/settings', { body: { settings: { orders: { handover: 'collection' } } } });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    expect(await buttons('en')).toEqual(expect.arrayContaining(['Ready for collection', 'Collected']));
    expect(await buttons('pt')).toEqual(expect.arrayContaining(['Pronta para levantar', 'Levantada']));
    await ownerMove(t, id, 'start_fulfilment');
    expect((await app.get(`/app/items/${id}?lang=en`)).text).toContain('<span class="badge accent">Ready for collection</span>');
    // The inbox list words the order's state the same way, and its state filter too.
    const listed = (lang: string) => app.get(`/app/inbox?lang=${lang}&f=1&type=order&state=fulfilling`).then((r) => r.text);
    expect(await listed('en')).toContain('<span class="badge accent">Ready for collection</span>');
    expect(await listed('en')).toContain('<option value="fulfilling" selected="selected">Ready for collection</option>');
    expect(await listed('en')).not.toContain('Being prepared');
    expect(await listed('pt')).toContain('<span class="badge accent">Pronta para levantar</span>');
    expect((await app.get('/app/today?lang=en')).status).toBe(200);

    expect((await t.owner('PUT', '/v1/owner/settings', { body: { settings: { orders: { handover: 'delivery' } } } })).status).toBe(200);
    expect(await buttons('en')).toContain('Mark as sent');
    expect(await buttons('pt')).toContain('Marcar como enviada');
    expect(await listed('en')).toContain('<span class="badge accent">Being prepared</span>');
    expect((await t.owner('PUT', '/v1/owner/settings', { body: { settings: { orders: { handover: 'by-pigeon' } } } })).status).toBe(422);
    // The setting is on the settings screen.
    expect((await app.get('/app/setup/settings?lang=en')).text).toContain('<option value="delivery" selected="selected">Sent</option>');
  });

  it('puts the list before the filters, folded, so a phone shows requests first', async () => {
    await book(t, '2026-11-24T10:00:00Z', 'Ana Silva');
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const plain = (await app.get('/app/inbox?lang=en')).text;
    expect(plain.indexOf('data-live-region="list"')).toBeLessThan(plain.indexOf('<details class="filters-fold card"><summary>Filters</summary>'));
    const filtered = (await app.get('/app/inbox?lang=en&f=1&type=booking&open_only=1')).text;
    expect(filtered).toContain('<details class="filters-fold card" open=""><summary>Filters</summary>');
  });

  it("asks for a date and time with the app's own words (the day in the business's language, 24-hour), not the browser's", async () => {
    const id = await book(t, '2026-11-24T10:00:00Z', 'Ana Silva');
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const page = await app.get(`/app/items/${id}?lang=pt`);
    expect(page.text).not.toContain('datetime-local');
    expect(page.text).toContain('<option value="2026-11-24" selected="selected">terça-feira, 24 de novembro de 2026</option>');
    expect(page.text).toMatch(/<select id="in-propose-startTime-time" name="in.startTime.time">.*<option value="10:00" selected="selected">10:00<\/option>/s);
    expect(page.text).toContain('<option value="18:45">18:45</option>');
    expect(page.text).not.toMatch(/\b(AM|PM)\b/);
    const key = /name="idempotency_key" value="([^"]+)"><input type="hidden" name="event" value="propose">/.exec(page.text)?.[1];
    const sent = await app.post(`/app/items/${id}/move`, { idempotency_key: key!, event: 'propose', expected_version: '1', 'in.startTime.date': '2026-11-25', 'in.startTime.time': '15:30', 'in.endTime.date': '' });
    expect(sent.status, sent.text.slice(0, 300)).toBe(303);
    const item = (await t.owner('GET', `/v1/owner/items/${id}`)).body;
    expect(Date.parse(item.payload.proposal.startTime)).toBe(Date.parse('2026-11-25T15:30:00Z'));
  });

  it('lists at most 20 of what waits on Today and counts the rest', async () => {
    for (let i = 0; i < 22; i++) {
      const r = await t.request('POST', '/v1/messages', { body: { payload: { subject: `Q${i}` }, contact: { name: `Cliente ${i}` }, message: `Pergunta número ${i}` } });
      expect(r.status).toBe(201);
    }
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const today = (await app.get('/app/today?lang=en')).text;
    expect(today).toContain('Needs you (22)');
    expect([...today.matchAll(/<li class="flagged"/g)]).toHaveLength(20);
    expect(today).toContain('And 2 more in the inbox.');
    // Oldest first: the first asked waits longest.
    expect(today.indexOf('Cliente 0<')).toBeLessThan(today.indexOf('Cliente 19<'));
    expect(today).not.toContain('Cliente 21<');
  });
});

