/**
 * Rules as the owner manages them (docs/rules.md): upsert_rule, list_rules, get_rule, delete_rule
 * and the test_rule dry run over HTTP; every validation refusal, and positive_only (inbox spec §7)
 * with the positive version of each refused rule accepted. Running rules: rules-run.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectFieldProblem, expectProblem } from './support/customer-calls.js';
import { haircutAt, startInbox, type TestInbox } from './support/harness.js';

const confirmFixedInHours = {
  name: 'Confirm fixed-price bookings inside opening hours',
  when: { event: 'booking.create' },
  if: [{ fact: 'price_model', in: ['fixed'] }, { fact: 'within_opening_hours' }],
  then: { do: 'transition', event: 'confirm' },
};

async function upsert(t: TestInbox, rule: Record<string, unknown>) {
  return t.owner('POST', '/v1/owner/rules', { body: { rule } });
}

async function created(t: TestInbox, rule: Record<string, unknown>) {
  const r = await upsert(t, rule);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

describe('rules: add, read, replace, delete', () => {
  let t: TestInbox;
  beforeEach(async () => {
    t = await startInbox();
  });
  afterEach(() => t.close());

  it('creates a rule (201, Location), reads it back, lists it, replaces it by id (200) and deletes it', async () => {
    const first = await upsert(t, { id: 'confirm-fixed', ...confirmFixedInHours });
    expect(first.status).toBe(201);
    expect(first.headers.get('location')).toBe('/v1/owner/rules/confirm-fixed');
    expect(first.body).toEqual({
      id: 'confirm-fixed',
      name: confirmFixedInHours.name,
      enabled: true,
      position: 0,
      when: { event: 'booking.create' },
      if: [{ fact: 'price_model', in: ['fixed'] }, { fact: 'within_opening_hours', is: true }],
      then: { do: 'transition', event: 'confirm' },
      createdAt: '2026-11-23T10:00:00.000Z',
      updatedAt: '2026-11-23T10:00:00.000Z',
    });

    const got = await t.owner('GET', '/v1/owner/rules/confirm-fixed');
    expect(got.status).toBe(200);
    expect(got.body).toEqual(first.body);

    t.clock.advance(60_000);
    const replaced = await upsert(t, { id: 'confirm-fixed', ...confirmFixedInHours, name: 'Renamed', enabled: false });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id: 'confirm-fixed', name: 'Renamed', enabled: false, position: 0, createdAt: '2026-11-23T10:00:00.000Z', updatedAt: '2026-11-23T10:01:00.000Z' });

    const listed = await t.owner('GET', '/v1/owner/rules');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ items: [replaced.body], next_cursor: null });

    const deleted = await t.owner('DELETE', '/v1/owner/rules/confirm-fixed');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual(replaced.body);
    expectProblem(await t.owner('GET', '/v1/owner/rules/confirm-fixed'), 404, 'not_found');
    expectProblem(await t.owner('DELETE', '/v1/owner/rules/confirm-fixed'), 404, 'not_found');
    expect((await t.owner('GET', '/v1/owner/rules')).body).toEqual({ items: [], next_cursor: null });
  });

  it('makes an id when none is given, puts new rules last, and pages the list in order', async () => {
    const a = await created(t, { ...confirmFixedInHours, name: 'A' });
    expect(a.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    const b = await created(t, { ...confirmFixedInHours, name: 'B' });
    const c = await created(t, { ...confirmFixedInHours, name: 'C', position: 0, id: 'c-first' });
    expect([a.position, b.position, c.position]).toEqual([0, 1, 0]);

    const page1 = await t.owner('GET', '/v1/owner/rules?limit=2');
    expect(page1.status).toBe(200);
    // Position, then id: a's ULID sorts before "c-first".
    expect(page1.body.items.map((r: any) => r.name)).toEqual(['A', 'C']);
    expect(page1.body.next_cursor).toEqual(expect.any(String));
    const page2 = await t.owner('GET', `/v1/owner/rules?limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`);
    expect(page2.body).toEqual({ items: [expect.objectContaining({ name: 'B' })], next_cursor: null });
    expectFieldProblem(await t.owner('GET', '/v1/owner/rules?cursor=not-ours'), 'cursor');
  });

  it('needs the owner key', async () => {
    expectProblem(await t.request('GET', '/v1/owner/rules'), 401, 'unauthorized');
    expectProblem(await t.request('POST', '/v1/owner/rules', { body: { rule: confirmFixedInHours } }), 401, 'unauthorized');
    expectProblem(await t.request('DELETE', '/v1/owner/rules/x'), 401, 'unauthorized');
  });

  it('replays an upsert sent again with the same idempotency key', async () => {
    const body = { rule: { id: 'r1', ...confirmFixedInHours }, idempotency_key: 'rule-1' };
    const first = await t.owner('POST', '/v1/owner/rules', { body });
    expect(first.status).toBe(201);
    const again = await t.owner('POST', '/v1/owner/rules', { body });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expectProblem(await t.owner('POST', '/v1/owner/rules', { body: { ...body, rule: { ...body.rule, name: 'Other' } } }), 422, 'idempotency_mismatch');
  });

  it('is in the OpenAPI document and on the owner MCP door', async () => {
    const openapi = await t.request('GET', '/openapi.json');
    expect(Object.keys(openapi.body.paths)).toEqual(expect.arrayContaining(['/v1/owner/rules', '/v1/owner/rules/{id}', '/v1/owner/rules/test']));
    expect(openapi.body.paths['/v1/owner/rules'].post.operationId).toBe('upsert_rule');
    const tools = await t.owner('POST', '/mcp/owner', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(tools.status).toBe(200);
    const names = JSON.stringify(tools.body ?? '');
    for (const name of ['list_rules', 'get_rule', 'upsert_rule', 'delete_rule', 'test_rule']) expect(names).toContain(name);
  });
});

describe('rules: refusals', () => {
  let t: TestInbox;
  beforeEach(async () => {
    t = await startInbox();
  });
  afterEach(() => t.close());

  const cases: [string, Record<string, unknown>, string, ('missing' | 'invalid')?][] = [
    ['no name', { ...confirmFixedInHours, name: undefined }, 'rule.name', 'missing'],
    ['an empty name', { ...confirmFixedInHours, name: '  ' }, 'rule.name'],
    ['no trigger', { ...confirmFixedInHours, when: undefined }, 'rule.when', 'missing'],
    ['a trigger that is not a pattern', { ...confirmFixedInHours, when: { event: 'booking' } }, 'rule.when.event'],
    ['an unknown item type', { ...confirmFixedInHours, when: { event: 'invoice.create' } }, 'rule.when.event'],
    ['an event the type does not have', { ...confirmFixedInHours, when: { event: 'booking.teleport' } }, 'rule.when.event'],
    ['an event no type has', { ...confirmFixedInHours, if: [], when: { event: '*.teleport' } }, 'rule.when.event'],
    ['a side event as trigger', { ...confirmFixedInHours, when: { event: 'booking.flags' } }, 'rule.when.event'],
    ['afterHours 0', { ...confirmFixedInHours, when: { event: 'booking.create', afterHours: 0 } }, 'rule.when.afterHours'],
    ['afterHours above a year', { ...confirmFixedInHours, when: { event: 'booking.create', afterHours: 8761 } }, 'rule.when.afterHours'],
    ['fractional afterHours', { ...confirmFixedInHours, when: { event: 'booking.create', afterHours: 1.5 } }, 'rule.when.afterHours'],
    ['an unknown fact', { ...confirmFixedInHours, if: [{ fact: 'moon_phase' }] }, 'rule.if.0.fact'],
    ['a fact missing its value', { ...confirmFixedInHours, if: [{ fact: 'price_at_most' }] }, 'rule.if.0.amountMinor', 'missing'],
    ['a negative amount', { ...confirmFixedInHours, if: [{ fact: 'price_at_most', amountMinor: -1 }] }, 'rule.if.0.amountMinor'],
    ['an unknown price model', { ...confirmFixedInHours, if: [{ fact: 'price_model', in: ['cheap'] }] }, 'rule.if.0.in.0'],
    ['a fact about other items', { ...confirmFixedInHours, when: { event: 'order.create' }, if: [{ fact: 'within_opening_hours' }], then: { do: 'transition', event: 'accept' } }, 'rule.if.0.fact'],
    ['eleven conditions', { ...confirmFixedInHours, if: Array.from({ length: 11 }, () => ({ fact: 'sandbox', is: false })) }, 'rule.if'],
    ['an unknown action', { ...confirmFixedInHours, then: { do: 'fly' } }, 'rule.then.do'],
    ['an event the machine lacks', { ...confirmFixedInHours, then: { do: 'transition', event: 'teleport' } }, 'rule.then.event'],
    ['a customer\'s event', { ...confirmFixedInHours, then: { do: 'transition', event: 'cancel' } }, 'rule.then.event'],
    ['an owner-only event', { ...confirmFixedInHours, then: { do: 'transition', event: 'no_show' } }, 'rule.then.event'],
    ['an event needing a time', { ...confirmFixedInHours, then: { do: 'transition', event: 'propose' } }, 'rule.then.event'],
    ['a quote, which needs a total', { ...confirmFixedInHours, if: [], when: { event: 'quote_request.create' }, then: { do: 'transition', event: 'quote' } }, 'rule.then.event'],
    ['a price in the input', { ...confirmFixedInHours, then: { do: 'transition', event: 'confirm', input: { price: 100 } } }, 'rule.then.input.price'],
    ['input on confirm', { ...confirmFixedInHours, then: { do: 'transition', event: 'confirm', input: { paymentUrl: 'https://pay.example.com' } } }, 'rule.then.input'],
    ['a dotted event name', { ...confirmFixedInHours, then: { do: 'transition', event: 'booking.confirm' } }, 'rule.then.event'],
    ['flags with nothing to set', { ...confirmFixedInHours, then: { do: 'set_flags' } }, 'rule.then'],
    ['priority 4', { ...confirmFixedInHours, then: { do: 'set_flags', priority: 4 } }, 'rule.then.priority'],
    ['an empty reply', { ...confirmFixedInHours, then: { do: 'reply', message: ' ' } }, 'rule.then.message'],
    ['an unknown field', { ...confirmFixedInHours, colour: 'red' }, 'rule.colour'],
    ['a bad id', { ...confirmFixedInHours, id: 'has space' }, 'rule.id'],
    ['a negative position', { ...confirmFixedInHours, position: -1 }, 'rule.position'],
    ['enabled as text', { ...confirmFixedInHours, enabled: 'yes' }, 'rule.enabled'],
  ];

  for (const [what, rule, path, problem] of cases) {
    it(`refuses ${what} with 422 naming ${path}, and stores nothing`, async () => {
      expectFieldProblem(await upsert(t, rule), path, problem ?? 'invalid');
      expect((await t.owner('GET', '/v1/owner/rules')).body.items).toEqual([]);
    });
  }

  it('refuses a body without a rule', async () => {
    expectFieldProblem(await t.owner('POST', '/v1/owner/rules', { body: {} }), 'rule', 'missing');
  });

  it('keeps at most 100 rules, but still replaces one when full', async () => {
    for (let i = 0; i < 100; i += 1) expect((await upsert(t, { ...confirmFixedInHours, id: `r${i}` })).status).toBe(201);
    expectFieldProblem(await upsert(t, { ...confirmFixedInHours, id: 'r100' }), 'rule.id');
    expect((await upsert(t, { ...confirmFixedInHours, id: 'r7', name: 'Still fine' })).status).toBe(200);
  });
});

describe('rules: positive_only', () => {
  let t: TestInbox;
  beforeEach(async () => {
    t = await startInbox();
  });
  afterEach(() => t.close());

  const refused: [string, Record<string, unknown>][] = [
    ['declines customers with no-shows', { when: { event: 'booking.create' }, if: [{ fact: 'customer_no_shows_at_least', count: 1 }], then: { do: 'transition', event: 'decline' } }],
    ['expires requests of new customers after a day', { when: { event: 'booking.create', afterHours: 24 }, if: [{ fact: 'customer_completed_at_least', count: 0 }], then: { do: 'transition', event: 'expire' } }],
    ['cancels orders of customers with few no-shows', { when: { event: 'order.create' }, if: [{ fact: 'customer_no_shows_at_most', count: 0 }], then: { do: 'transition', event: 'cancel' } }],
    ['cancels bookings for the business', { when: { event: 'booking.*' }, if: [{ fact: 'sandbox', is: false }, { fact: 'customer_no_shows_at_least', count: 2 }], then: { do: 'transition', event: 'cancel_by_business' } }],
    ['marks conversations as spam', { when: { event: 'message.create' }, if: [{ fact: 'customer_no_shows_at_least', count: 3 }], then: { do: 'transition', event: 'mark_spam' } }],
  ];
  for (const [what, rule] of refused) {
    it(`refuses a standing rule that ${what}`, async () => {
      const r = await upsert(t, { name: what, ...rule });
      expectProblem(r, 422, 'positive_only');
      expect(r.body.fields).toContainEqual(expect.objectContaining({ path: 'rule.then.event' }));
      expect((await t.owner('GET', '/v1/owner/rules')).body.items).toEqual([]);
    });
  }

  it('accepts the positive versions: standing that confirms or raises needsHuman, and refusals that read no standing', async () => {
    await created(t, { name: 'Regulars are confirmed', when: { event: 'booking.create' }, if: [{ fact: 'customer_completed_at_least', count: 2 }, { fact: 'customer_no_shows_at_most', count: 0 }], then: { do: 'transition', event: 'confirm' } });
    await created(t, { name: 'No-shows get a look', when: { event: 'booking.create' }, if: [{ fact: 'customer_no_shows_at_least', count: 1 }], then: { do: 'set_flags', needsHuman: true, priority: 2 } });
    await created(t, { name: 'Greet regulars', when: { event: 'booking.create' }, if: [{ fact: 'customer_completed_at_least', count: 1 }], then: { do: 'reply', message: 'Welcome back!' } });
    await created(t, { name: 'Expire unanswered', when: { event: 'booking.create', afterHours: 24 }, if: [], then: { do: 'transition', event: 'expire' } });
    await created(t, { name: 'Decline off-hours', when: { event: 'booking.create' }, if: [{ fact: 'within_opening_hours', is: false }], then: { do: 'transition', event: 'decline' } });
    expect((await t.owner('GET', '/v1/owner/rules')).body.items).toHaveLength(5);
  });

  it('refuses the same rule in a dry run', async () => {
    const booking = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-11-24T10:00:00Z') });
    const r = await t.owner('POST', '/v1/owner/rules/test', {
      body: { item_id: booking.body.id, rule: { name: 'x', ...refused[0]![1] } },
    });
    expectProblem(r, 422, 'positive_only');
  });
});

describe('rules: test_rule, the dry run', () => {
  let t: TestInbox;
  beforeEach(async () => {
    t = await startInbox();
    await created(t, { id: 'confirm-fixed', ...confirmFixedInHours });
  });
  afterEach(() => t.close());

  async function book(body: Record<string, unknown>): Promise<string> {
    const r = await t.request('POST', '/v1/bookings', { body });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.id;
  }

  async function dryRun(body: Record<string, unknown>) {
    const r = await t.owner('POST', '/v1/owner/rules/test', { body });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  }

  it('says a stored rule would confirm a fixed-price booking inside hours, and changes nothing', async () => {
    const id = await book(haircutAt('2026-11-24T10:00:00Z'));
    const before = (await t.owner('GET', `/v1/owner/items/${id}`)).body;
    const answer = await dryRun({ item_id: id, rule_id: 'confirm-fixed' });
    expect(answer).toMatchObject({
      outcome: 'would_act',
      item: { id, type: 'booking', state: 'requested', version: 1 },
      conditions: [
        { fact: 'price_model', holds: true, detail: 'price model fixed' },
        { fact: 'within_opening_hours', holds: true },
      ],
      refusal: null,
      rule: { id: 'confirm-fixed' },
    });
    const after = (await t.owner('GET', `/v1/owner/items/${id}`)).body;
    expect(after).toEqual(before);
    expect(await t.inbox.store.jobs.list('rules.run')).toHaveLength(1); // only the create's own job
  });

  it('says conditions_not_met outside opening hours', async () => {
    // create_booking refuses a time outside hours, so the hours change after the request: Tuesdays now open after lunch only.
    const id = await book(haircutAt('2026-11-24T10:00:00Z'));
    expect((await t.owner('PUT', '/v1/owner/availability/hours', { body: { openingHours: [{ dayOfWeek: 2, opens: '14:00', closes: '19:30' }] } })).status).toBe(200);
    const answer = await dryRun({ item_id: id, rule_id: 'confirm-fixed' });
    expect(answer.outcome).toBe('conditions_not_met');
    expect(answer.conditions[1]).toEqual({ fact: 'within_opening_hours', holds: false, detail: 'outside opening hours' });
  });

  it('says refused (guard_failed) when a rule would confirm work the business has not priced', async () => {
    const id = await book(haircutAt('2026-11-24T10:00:00Z', { serviceId: 'colouring' }));
    const answer = await dryRun({ item_id: id, rule: { name: 'Confirm anything in hours', when: { event: 'booking.create' }, if: [{ fact: 'within_opening_hours' }], then: { do: 'transition', event: 'confirm' } } });
    expect(answer).toMatchObject({ outcome: 'refused', refusal: { code: 'guard_failed' }, rule: { id: 'draft' } });
    expect(answer.refusal.detail).toMatch(/price/);
  });

  it('says not_applicable for an item type the trigger never starts on', async () => {
    const order = await t.request('POST', '/v1/orders', { body: { payload: { lines: [{ productId: 'argan-shampoo', quantity: 1 }] } } });
    expect(order.status).toBe(201);
    const answer = await dryRun({ item_id: order.body.id, rule_id: 'confirm-fixed' });
    expect(answer).toMatchObject({ outcome: 'not_applicable', conditions: [], refusal: null });
  });

  it('refuses an unknown rule or item, and a call naming both or neither kind of rule', async () => {
    const id = await book(haircutAt('2026-11-24T10:00:00Z'));
    expectProblem(await t.owner('POST', '/v1/owner/rules/test', { body: { item_id: id, rule_id: 'nope' } }), 404, 'not_found');
    expectProblem(await t.owner('POST', '/v1/owner/rules/test', { body: { item_id: '01JAAAAAAAAAAAAAAAAAAAAAAA', rule_id: 'confirm-fixed' } }), 404, 'not_found');
    expectFieldProblem(await t.owner('POST', '/v1/owner/rules/test', { body: { item_id: id } }), 'rule_id');
    expectFieldProblem(await t.owner('POST', '/v1/owner/rules/test', { body: { item_id: id, rule_id: 'confirm-fixed', rule: confirmFixedInHours } }), 'rule_id');
    expectFieldProblem(await t.owner('POST', '/v1/owner/rules/test', { body: { rule_id: 'confirm-fixed' } }), 'item_id', 'missing');
    expectFieldProblem(await t.owner('POST', '/v1/owner/rules/test', { body: { item_id: id, rule: { ...confirmFixedInHours, then: { do: 'transition', event: 'teleport' } } } }), 'rule.then.event');
  });
});
