/**
 * The inbox true to its own words (issue 35): points an outside audit reproduced, each through REST
 * and, where the operation is there, MCP. A booking may name its service and the catalogue's name
 * replaces it (pricing rule 3); identity.guide is absolute in every answer; an unknown service in
 * check_availability is 404 (§7); the profile lists only what a customer can create; the settings
 * document written back as read is taken (§5); the mail door takes raw MIME and says so (415);
 * inbox.test carries the caller's actor (§2, §6).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectFieldProblem, expectProblem } from './support/customer-calls.js';
import { haircutAt } from './support/harness.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';
import { startWebhookInbox, type WebhookTestInbox } from './support/webhooks-inbox.js';

let t: WebhookTestInbox;
const clients: Client[] = [];

beforeAll(async () => {
  t = await startWebhookInbox();
});
afterAll(async () => {
  for (const client of clients.splice(0)) await client.close();
  await t.close();
});

async function mcp(path: '/mcp' | '/mcp/owner', headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'own-words-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}${path}`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const ownerMcp = () => mcp('/mcp/owner', { authorization: `Bearer ${t.ownerKey}` });

/** A tool's answer: its structured content, or its problem document when it is an error. */
async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; body: any }> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.structuredContent as any;
  return { isError: result.isError === true, body: result.isError ? content?.error : content };
}

describe('pricing rule 3: a booking may name its service; the catalogue\'s name replaces it', () => {
  it('takes serviceName and stores the catalogue\'s, over REST and MCP', async () => {
    const created = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-11-24T10:00:00Z', { serviceName: 'Corte de cabelo (as the agent knows it)' }) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.payload).toMatchObject({ serviceId: 'haircut', serviceName: 'Haircut', price: 2500, priceStatus: 'catalogue' });
    const stored = await t.owner('GET', `/v1/owner/items/${created.body.id}`);
    expect(stored.body.payload.serviceName).toBe('Haircut');

    const client = await mcp('/mcp');
    const viaMcp = await tool(client, 'create_booking', { ...haircutAt('2026-11-24T11:00:00Z', { serviceName: 'Anything at all' }), idempotency_key: 'own-words-mcp-booking' });
    expect(viaMcp.isError, JSON.stringify(viaMcp.body)).toBe(false);
    expect(viaMcp.body.payload.serviceName).toBe('Haircut');
  });

  it('a booking read back can be sent again: its payload\'s serviceName is taken', async () => {
    const first = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-11-24T14:00:00Z') });
    const { serviceId, serviceName, startTime, partySize } = first.body.payload;
    const again = await t.request('POST', '/v1/bookings', { body: { payload: { serviceId, serviceName, startTime: startTime.replace('T14:', 'T15:'), partySize } } });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
  });

  it('still refuses a booking\'s `name` (it could be the person\'s), and an order line\'s name gives way to its product\'s', async () => {
    expectFieldProblem(await t.request('POST', '/v1/bookings', { body: haircutAt('2026-11-24T16:00:00Z', { name: 'Haircut' }) }), 'payload.name');
    const products = (await t.request('GET', '/v1/products')).body.items;
    const product = products[0];
    const order = await t.request('POST', '/v1/orders', { body: { payload: { lines: [{ productId: product.productId, name: 'whatever', quantity: 1 }] } } });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    expect(order.body.payload.lines[0].name).toBe(product.name);
  });
});

describe('identity.guide is an absolute URL in every answer', () => {
  it('create, status over REST, and status over MCP', async () => {
    const guide = `${'http://127.0.0.1'}/docs/agents`;
    const created = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-11-25T10:00:00Z') });
    expect(created.body.identity.guide).toBe(guide);
    const status = await t.request('GET', `/v1/items/${created.body.id}`, { headers: { 'x-access-token': created.body.accessToken } });
    expect(status.status).toBe(200);
    expect(status.body.identity.guide).toBe(guide);
    const client = await mcp('/mcp');
    const viaMcp = await tool(client, 'get_item_status', { id: created.body.id, access_token: created.body.accessToken });
    expect(viaMcp.body.identity.guide).toBe(guide);
    // It is served there.
    const page = await t.request('GET', new URL(guide).pathname);
    expect(page.status).toBe(200);
  });
});

describe('check_availability of a service the business does not offer', () => {
  it('is 404 not_found over REST and MCP; bad input still 422 first', async () => {
    expectProblem(await t.request('GET', '/v1/availability?service=nope&from=2026-11-24&to=2026-11-25'), 404, 'not_found');
    const client = await mcp('/mcp');
    const viaMcp = await tool(client, 'check_availability', { service: 'nope', from: '2026-11-24', to: '2026-11-25' });
    expect(viaMcp.isError).toBe(true);
    expect(viaMcp.body).toMatchObject({ status: 404, code: 'not_found' });
    // A window the contract refuses is refused as bad input whatever service it names.
    expectFieldProblem(await t.request('GET', '/v1/availability?service=nope&from=2026-11-24&to=2026-12-24'), 'to');
    // The OpenAPI document says so.
    const openapi = (await t.request('GET', '/openapi.json')).body;
    expect(Object.keys(openapi.paths['/v1/availability'].get.responses)).toContain('404');
    // And a create naming an unknown service stays an input problem.
    expectFieldProblem(await t.request('POST', '/v1/bookings', { body: { payload: { serviceId: 'nope', startTime: '2026-11-24T10:00:00Z' } } }), 'payload.serviceId');
  });
});

describe('the item types a business accepts are what a customer can create', () => {
  it('never lists refund: profile, manifest and MCP; an owner cannot add it', async () => {
    const types = ['message', 'quote_request', 'booking', 'order'];
    expect((await t.request('GET', '/v1/business')).body.itemTypes).toEqual(types);
    expect((await t.request('GET', '/.well-known/agent-inbox.json')).body.item_types).toEqual(types);
    const client = await mcp('/mcp');
    expect((await tool(client, 'get_business_profile', {})).body.itemTypes).toEqual(types);
    expectFieldProblem(await t.owner('PATCH', '/v1/owner/profile', { body: { profile: { itemTypes: ['booking', 'refund'] } } }), 'profile.itemTypes.1');
    expect((await t.request('GET', '/v1/business')).body.itemTypes).toEqual(types);
  });

  it('reads a profile stored before without refund, the rest as it was', async () => {
    const stored = await t.inbox.store.business.get();
    const document = { ...(stored?.document as Record<string, unknown>), itemTypes: ['booking', 'refund', 'order'] };
    expect(await t.inbox.store.business.put(document, stored?.version ?? null, t.clock.now())).toBeTruthy();
    expect((await t.request('GET', '/v1/business')).body.itemTypes).toEqual(['booking', 'order']);
    expect((await t.owner('GET', '/v1/owner/profile')).body.profile.itemTypes).toEqual(['booking', 'order']);
    const restored = await t.owner('PATCH', '/v1/owner/profile', { body: { profile: { itemTypes: ['message', 'quote_request', 'booking', 'order'] } } });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
  });
});

describe('the settings document written back as read', () => {
  const SECRET = 'inbound-secret-of-the-audit-0001';

  it('is taken over REST: version is the expected version, redacted is ignored, the secret kept', async () => {
    const set = await t.owner('PUT', '/v1/owner/settings', { body: { settings: { email: { inboundSecret: SECRET }, orders: { payDays: 9 } } } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const read = await t.owner('GET', '/v1/owner/settings');
    expect(read.body.redacted).toEqual(['email.inboundSecret']);

    const back = await t.owner('PUT', '/v1/owner/settings', { body: read.body });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body.version).toBe(read.body.version + 1);
    expect(back.body.settings).toEqual(read.body.settings);
    // The secret is the one set, not the marker: the mail door takes it.
    const mail = await fetch(`${t.baseUrl}/v1/email/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'message/rfc822', 'x-inbox-email-secret': SECRET },
      body: 'From: Rita <rita@example.com>\r\nSubject: Hello\r\n\r\nAre you open on Saturday?\r\n',
    });
    expect(mail.status).toBe(201);

    // The same document again is stale: its version is the one before.
    const stale = await t.owner('PUT', '/v1/owner/settings', { body: read.body });
    expectProblem(stale, 409, 'version_conflict');
    expect((await t.owner('GET', '/v1/owner/settings')).body.version).toBe(back.body.version);
  });

  it('version and expected_version that differ are refused naming both; equal ones are one', async () => {
    const read = (await t.owner('GET', '/v1/owner/settings')).body;
    const both = await t.owner('PUT', '/v1/owner/settings', { body: { ...read, expected_version: read.version + 1 } });
    expectFieldProblem(both, 'version');
    expectFieldProblem(both, 'expected_version');
    expect((await t.owner('GET', '/v1/owner/settings')).body.version).toBe(read.version);
    const same = await t.owner('PUT', '/v1/owner/settings', { body: { ...read, expected_version: read.version } });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
  });

  it('is taken over the owner MCP (update_settings) as get_settings answered it', async () => {
    const client = await ownerMcp();
    const read = await tool(client, 'get_settings', {});
    expect(read.isError).toBe(false);
    const back = await tool(client, 'update_settings', { ...read.body, idempotency_key: 'own-words-settings-mcp' });
    expect(back.isError, JSON.stringify(back.body)).toBe(false);
    expect(back.body.version).toBe(read.body.version + 1);
    const stale = await tool(client, 'update_settings', { ...read.body, idempotency_key: 'own-words-settings-mcp-2' });
    expect(stale.body).toMatchObject({ status: 409, code: 'version_conflict' });
  });
});

describe('the mail door takes raw MIME', () => {
  const SECRET = 'inbound-secret-of-the-audit-0002';
  const MESSAGE = 'From: Rita <rita@example.com>\r\nSubject: Hello\r\n\r\nDo you sell gift cards?\r\n';
  const send = async (body: string, headers: Record<string, string>) => {
    const response = await fetch(`${t.baseUrl}/v1/email/inbound`, { method: 'POST', headers: { 'x-inbox-email-secret': SECRET, ...headers }, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  };

  beforeAll(async () => {
    const set = await t.owner('PUT', '/v1/owner/settings', { body: { settings: { email: { inboundSecret: SECRET } } } });
    expect(set.status).toBe(200);
  });

  it('refuses JSON and every other media type with 415 naming message/rfc822', async () => {
    for (const [type, body] of [
      ['application/json', JSON.stringify({ from: 'rita@example.com', text: 'hi' })],
      ['application/x-www-form-urlencoded', 'from=rita%40example.com&text=hi'],
      ['text/html', '<p>hi</p>'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\nhi\r\n--x--\r\n'],
    ] as const) {
      const r = await send(body, { 'content-type': type });
      expectProblem(r, 415, 'unsupported_media_type');
      expect(r.body.detail, type).toContain('message/rfc822');
      expect(r.body.detail).not.toContain('application/json.');
    }
    // No media type at all: the same answer.
    const bare = await fetch(`${t.baseUrl}/v1/email/inbound`, { method: 'POST', headers: { 'x-inbox-email-secret': SECRET }, body: new Blob([MESSAGE]) });
    expect(bare.status).toBe(415);
    expect(((await bare.json()) as { detail: string }).detail).toContain('message/rfc822');
  });

  it('takes message/rfc822, message/global, text/plain and application/octet-stream', async () => {
    for (const type of ['message/rfc822', 'message/global', 'text/plain; charset=utf-8', 'application/octet-stream']) {
      const r = await send(MESSAGE.replace('gift cards', `gift cards (${type})`), { 'content-type': type });
      expect(r.status, `${type}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
      expect(r.body.ok).toBe(true);
    }
  });

  it('the other routes still take JSON and refuse the rest with their own advice', async () => {
    const r = await t.request('POST', '/v1/bookings', { rawBody: 'From: x', headers: { 'content-type': 'message/rfc822' } });
    expectProblem(r, 415, 'unsupported_media_type');
    expect(r.body.detail).toContain('application/json');
  });
});

describe('the inbox.test delivery carries the caller as real events do', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());
  afterEach(() => {
    receiver.received.length = 0;
  });

  it('the key\'s id and name over REST, and the owner MCP\'s channel', async () => {
    const keys = (await t.owner('GET', '/v1/owner/api-keys')).body.items as { id: string; name: string }[];
    const ownerKey = keys.find((k) => k.name === 'test owner');
    expect(ownerKey).toBeDefined();
    const endpoint = await t.owner('POST', '/v1/owner/webhooks', { body: { url: receiver.url } });
    expect(endpoint.status).toBe(201);

    const sent = await t.owner('POST', `/v1/owner/webhooks/${endpoint.body.id}/test`);
    expect(sent.body.status).toBe('succeeded');
    expect(receiver.received[0]?.json.data).toMatchObject({ actor: { kind: 'owner', id: ownerKey?.id, name: 'test owner' }, channel: 'rest' });

    // A real event made with the same key says the same.
    const created = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-11-26T10:00:00Z') });
    const moved = await t.owner('POST', `/v1/owner/items/${created.body.id}/transitions`, { body: { event: 'confirm' } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const confirm = (await t.owner('GET', '/v1/owner/events?types=booking.confirm')).body.events.at(-1);
    expect(confirm.data.actor).toEqual(receiver.received[0]?.json.data.actor);

    const client = await ownerMcp();
    const viaMcp = await tool(client, 'send_test_event', { id: endpoint.body.id });
    expect(viaMcp.body.status).toBe('succeeded');
    const last = receiver.received.at(-1)?.json;
    expect(last).toMatchObject({ type: 'inbox.test', data: { actor: { kind: 'owner', id: ownerKey?.id, name: 'test owner' }, channel: 'mcp_owner' } });
  });
});
