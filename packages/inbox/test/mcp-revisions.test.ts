/**
 * The inbox's MCP doors across protocol revisions (issue 5): every revision the SDK knows is
 * negotiated, an unknown one gets the current one, an unsupported MCP-Protocol-Version header is
 * 400, and every tool of /mcp and /mcp/owner is driven through the SDK's own client, once per
 * revision, along the path an agent takes: look, book, order, ask, follow up; the owner answers.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectMcp,
  CURRENT_REVISION,
  initializeMessage,
  postJsonRpc,
  PREVIOUS_REVISIONS,
  type McpConnection,
} from '../../../test-support/mcp-client.js';
import { callTheRest, runSteps, type Door, type ToolStep } from '../../../test-support/mcp-tool-drive.js';
import { startInbox, type TestInbox } from './support/harness.js';

let t: TestInbox;
const connections: McpConnection[] = [];

beforeAll(async () => {
  t = await startInbox();
});
afterAll(async () => {
  for (const connection of connections) await connection.close();
  await t.close();
});

async function door(path: string, revision: string, headers: Record<string, string> = {}): Promise<Door & { negotiated: string | undefined }> {
  const connection = await connectMcp(`${t.baseUrl}${path}`, { revision, headers });
  connections.push(connection);
  const { tools } = await connection.client.listTools();
  return { client: connection.client, tools, negotiated: connection.negotiated };
}

const ownerAuth = () => ({ authorization: `Bearer ${t.ownerKey}` });

describe('protocol revisions', () => {
  it('are documented in docs/decisions.md exactly as the SDK negotiates them', () => {
    const document = readFileSync(new URL('../../../docs/decisions.md', import.meta.url), 'utf8');
    const section = document.slice(document.indexOf('### MCP protocol revisions'), document.indexOf('- `initialize` answers'));
    expect(section).toMatch(new RegExp(`\\*\\*${CURRENT_REVISION}\\*\\*\\s+\\(current\\)`));
    expect([...section.matchAll(/\*\*(\d{4}-\d{2}-\d{2})\*\*/g)].map((m) => m[1])).toEqual([CURRENT_REVISION, ...PREVIOUS_REVISIONS]);
  });

  it('answers initialize with the revision asked for when supported, on both doors', async () => {
    for (const revision of [CURRENT_REVISION, ...PREVIOUS_REVISIONS]) {
      for (const [path, headers] of [['/mcp', {}], ['/mcp/owner', ownerAuth()]] as const) {
        const r = await postJsonRpc(`${t.baseUrl}${path}`, initializeMessage(revision), headers);
        expect(r.status, `${path} ${revision}`).toBe(200);
        expect(r.body.result.protocolVersion).toBe(revision);
        expect(r.body.result.capabilities).toHaveProperty('tools');
        expect(r.body.result.instructions).toMatch(/\S/);
      }
    }
  });

  it('answers an unknown revision with the current one, so the client can decide', async () => {
    for (const asked of ['2023-01-01', '2099-12-31', 'draft']) {
      const r = await postJsonRpc(`${t.baseUrl}/mcp`, initializeMessage(asked));
      expect(r.status).toBe(200);
      expect(r.body.result.protocolVersion).toBe(CURRENT_REVISION);
    }
  });

  it('refuses a request whose MCP-Protocol-Version header names an unsupported revision with 400', async () => {
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    for (const [path, headers] of [['/mcp', {}], ['/mcp/owner', ownerAuth()]] as const) {
      const refused = await postJsonRpc(`${t.baseUrl}${path}`, list, { ...headers, 'mcp-protocol-version': '1999-01-01' });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(/Unsupported protocol version/);
      expect(refused.body.error.message).toContain(CURRENT_REVISION);
      for (const revision of [CURRENT_REVISION, ...PREVIOUS_REVISIONS]) {
        const served = await postJsonRpc(`${t.baseUrl}${path}`, list, { ...headers, 'mcp-protocol-version': revision });
        expect(served.status, `${path} ${revision}`).toBe(200);
        expect(served.body.result.tools.length).toBeGreaterThan(0);
      }
      // Without the header the server assumes 2025-03-26, as the transport specification says.
      const bare = await postJsonRpc(`${t.baseUrl}${path}`, list, headers);
      expect(bare.status).toBe(200);
    }
  });

  it('takes a JSON-RPC batch from a 2025-03-26 client, the last revision that had them', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'tools/list', params: {} },
      { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'get_business_profile', arguments: {} } },
    ];
    const r = await postJsonRpc(`${t.baseUrl}/mcp`, batch, { 'mcp-protocol-version': '2025-03-26' });
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    const byId = new Map((r.body as { id: string; result: any }[]).map((m) => [m.id, m.result]));
    expect(byId.get('a').tools.map((tool: { name: string }) => tool.name)).toContain('create_booking');
    expect(byId.get('b').structuredContent.name).toMatch(/\S/);
  });

  it('checks the owner key before the protocol header: no key is 401 whatever the revision', async () => {
    const r = await postJsonRpc(`${t.baseUrl}/mcp/owner`, { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, { 'mcp-protocol-version': '1999-01-01' });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('unauthorized');
  });
});

/** What the walk learns on the way and later steps use. */
interface Walk {
  revision: string;
  productId?: string;
  start?: string;
  laterStart?: string;
  booking?: { id: string; accessToken: string };
  quote?: { id: string; accessToken: string };
  order?: { id: string; accessToken: string };
  settingsVersion?: number;
  openingHours?: unknown[];
  closures?: { startDate: string; endDate: string; reason: string | null }[];
}

const contact = { name: 'Rita Gomes', email: 'rita@example.com' };
const NO_SUCH_ITEM = '01KAAAAAAAAAAAAAAAAAAAAAAA';

/** An agent books, orders and asks; the owner answers; the agent follows up; the owner tends the setup. */
const WALK: ToolStep<Walk>[] = [
  { door: 'public', tool: 'get_business_profile', args: () => ({}), then: (a) => expect(a.name).toMatch(/\S/) },
  { door: 'public', tool: 'list_services', args: () => ({}), then: (a) => expect(a.items.map((s: { id: string }) => s.id)).toContain('haircut') },
  {
    door: 'public',
    tool: 'list_products',
    args: () => ({}),
    then: (a, w) => {
      w.productId = a.items[0].productId;
    },
  },
  {
    door: 'public',
    tool: 'check_availability',
    args: () => ({ service: 'haircut', from: '2026-12-01', to: '2026-12-02' }),
    then: (a, w) => {
      expect(a.slots.length).toBeGreaterThan(2);
      w.start = a.slots[0].start;
      w.laterStart = a.slots[a.slots.length - 1].start;
    },
  },
  { door: 'public', tool: 'create_booking', args: () => ({ payload: { serviceId: 'haircut' }, contact }), expect: 'invalid_input' },
  {
    door: 'public',
    tool: 'create_booking',
    args: (w) => ({ payload: { serviceId: 'haircut', startTime: w.start }, contact, idempotency_key: `walk-booking-${w.revision}` }),
    then: (a, w) => {
      expect(a).toMatchObject({ type: 'booking', state: 'requested' });
      w.booking = { id: a.id, accessToken: a.accessToken };
    },
  },
  { door: 'public', tool: 'get_item_status', args: (w) => ({ id: w.booking?.id, access_token: 'svc_tok_wrong' }), expect: 'unauthorized' },
  { door: 'public', tool: 'get_item_status', args: (w) => ({ id: w.booking?.id, access_token: w.booking?.accessToken }), then: (a) => expect(a.state).toBe('requested') },
  {
    door: 'public',
    tool: 'send_message',
    args: (w) => ({ item_id: w.booking?.id, access_token: w.booking?.accessToken, message: 'May I bring my own shampoo?', idempotency_key: `walk-say-${w.revision}` }),
  },
  {
    door: 'public',
    tool: 'request_quote',
    args: (w) => ({ payload: { description: 'Bridal styling for five people' }, contact, idempotency_key: `walk-quote-${w.revision}` }),
    then: (a, w) => {
      w.quote = { id: a.id, accessToken: a.accessToken };
    },
  },
  {
    door: 'public',
    tool: 'create_order',
    args: (w) => ({ payload: { lines: [{ productId: w.productId, quantity: 1 }] }, contact, idempotency_key: `walk-order-${w.revision}` }),
    then: (a, w) => {
      w.order = { id: a.id, accessToken: a.accessToken };
    },
  },
  { door: 'owner', tool: 'list_items', args: () => ({ limit: 100 }), then: (a, w) => expect(a.items.map((i: { id: string }) => i.id)).toContain(w.booking?.id) },
  { door: 'owner', tool: 'get_item', args: () => ({ id: NO_SUCH_ITEM }), expect: 'not_found' },
  { door: 'owner', tool: 'get_item', args: (w) => ({ id: w.booking?.id }), then: (a) => expect(a.channel).toBe('mcp_public') },
  {
    door: 'owner',
    tool: 'transition_item',
    args: (w) => ({ id: w.booking?.id, event: 'propose', input: { startTime: w.laterStart }, reason: 'The morning is full.', idempotency_key: `walk-propose-${w.revision}` }),
    then: (a) => expect(a.state).toBe('proposed'),
  },
  {
    door: 'owner',
    tool: 'transition_item',
    args: (w) => ({ id: w.quote?.id, event: 'quote', input: { totalPrice: 45000 }, idempotency_key: `walk-price-${w.revision}` }),
    then: (a) => expect(a.state).toBe('quoted'),
  },
  { door: 'owner', tool: 'reply', args: (w) => ({ id: w.booking?.id, message: 'Of course you may.', idempotency_key: `walk-reply-${w.revision}` }) },
  { door: 'owner', tool: 'set_item_flags', args: (w) => ({ id: w.booking?.id, priority: 2 }), then: (a) => expect(a.priority).toBe(2) },
  {
    door: 'public',
    tool: 'accept_offer',
    args: (w) => ({ id: w.booking?.id, access_token: w.booking?.accessToken, idempotency_key: `walk-accept-${w.revision}` }),
    then: (a) => expect(a.state).toBe('confirmed'),
  },
  {
    door: 'public',
    tool: 'decline_offer',
    args: (w) => ({ id: w.quote?.id, access_token: w.quote?.accessToken, idempotency_key: `walk-decline-${w.revision}` }),
    then: (a) => expect(a.state).toBe('declined'),
  },
  {
    door: 'public',
    tool: 'cancel_item',
    args: (w) => ({ id: w.order?.id, access_token: w.order?.accessToken, reason: 'Found one at home.', idempotency_key: `walk-cancel-${w.revision}` }),
    then: (a) => expect(a.state).toBe('cancelled'),
  },
  { door: 'public', tool: 'cancel_item', args: (w) => ({ id: w.order?.id, access_token: w.order?.accessToken }), expect: 'wrong_state' },
  {
    door: 'owner',
    tool: 'get_settings',
    args: () => ({}),
    then: (a, w) => {
      w.settingsVersion = a.version;
    },
  },
  { door: 'owner', tool: 'update_settings', args: (w) => ({ settings: {}, expected_version: (w.settingsVersion ?? 0) + 100 }), expect: 'version_conflict' },
  { door: 'owner', tool: 'update_settings', args: (w) => ({ settings: {}, expected_version: w.settingsVersion }) },
  { door: 'owner', tool: 'get_profile', args: () => ({}) },
  {
    door: 'owner',
    tool: 'update_profile',
    args: (w) => ({ profile: { description: `Open late on Fridays (${w.revision}).` } }),
    then: (a, w) => expect(a.profile.description).toContain(w.revision),
  },
  { door: 'owner', tool: 'list_all_services', args: () => ({}) },
  {
    door: 'owner',
    tool: 'upsert_service',
    args: (w) => ({ service: { id: `trial-${w.revision}`, name: 'Trial trim', durationMinutes: 30, priceModel: 'none' }, idempotency_key: `walk-service-${w.revision}` }),
  },
  { door: 'owner', tool: 'archive_service', args: (w) => ({ id: `trial-${w.revision}` }) },
  { door: 'owner', tool: 'list_all_products', args: () => ({}) },
  {
    door: 'owner',
    tool: 'upsert_product',
    args: (w) => ({ product: { productId: `comb-${w.revision}`, name: 'Wide-tooth comb', price: 650 }, idempotency_key: `walk-product-${w.revision}` }),
  },
  { door: 'owner', tool: 'archive_product', args: (w) => ({ id: `comb-${w.revision}` }) },
  {
    door: 'owner',
    tool: 'get_availability',
    args: () => ({}),
    then: (a, w) => {
      w.openingHours = a.openingHours;
      w.closures = a.closures;
    },
  },
  { door: 'owner', tool: 'set_opening_hours', args: (w) => ({ openingHours: w.openingHours }) },
  {
    door: 'owner',
    tool: 'set_closures',
    args: (w) => ({ closures: (w.closures ?? []).map(({ startDate, endDate, reason }) => ({ startDate, endDate, reason })) }),
  },
];

describe.each([CURRENT_REVISION, ...PREVIOUS_REVISIONS])('every tool through the SDK client at revision %s', (revision) => {
  // Every tool of both doors, writes included: on PostgreSQL a round trip for each statement.
  it('negotiates the revision and answers every tool of /mcp and /mcp/owner in protocol', { timeout: 120_000 }, async () => {
    const publicDoor = await door('/mcp', revision);
    const ownerDoor = await door('/mcp/owner', revision, ownerAuth());
    expect(publicDoor.negotiated).toBe(revision);
    expect(ownerDoor.negotiated).toBe(revision);

    const called = await runSteps({ public: publicDoor, owner: ownerDoor }, WALK, { revision });
    await callTheRest(publicDoor, called.get('public') ?? new Set());
    await callTheRest(ownerDoor, called.get('owner') ?? new Set());
  });
});
