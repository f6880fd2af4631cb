/**
 * The inbox's MCP doors (inbox spec §1, §4, §7), driven with the SDK's own client: the public server
 * at /mcp and the owner server at /mcp/owner offer the operation tables as tools with the REST
 * schemas; an owner's idempotency key is one write across MCP and REST, either way round, and a
 * customer's is the door's own;
 * refusals come as problem documents; the server instructions name only real tools and arguments.
 * Parity with /openapi.json: mcp-parity.test.ts; protocol revisions and every tool: mcp-revisions.test.ts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonSchemaOf } from '@svc/shared';
import { OWNER_OPERATIONS, PUBLIC_OPERATIONS } from '../src/operations/index.js';
import { haircutAt, startInbox, type TestInbox } from './support/harness.js';

let t: TestInbox;
const clients: Client[] = [];

async function connect(path: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'inbox-mcp-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}${path}`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

beforeAll(async () => {
  t = await startInbox();
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await t.close();
});

describe('the public MCP server at /mcp', () => {
  it('lists the public operations as tools with annotations and the REST input schemas', async () => {
    const client = await connect('/mcp');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(PUBLIC_OPERATIONS.map((op) => op.name));
    for (const op of PUBLIC_OPERATIONS) {
      const tool = tools.find((x) => x.name === op.name);
      expect(tool?.description).toBe(op.description);
      expect(tool?.annotations).toEqual({ title: op.title, ...op.annotations });
      expect(tool?.inputSchema).toEqual(jsonSchemaOf(op.input, 'input'));
    }
    expect(tools.find((x) => x.name === 'create_booking')?.inputSchema.properties).toHaveProperty('idempotency_key');
    expect(client.getInstructions()).toMatch(/idempotency_key/);
    expect(client.getInstructions()).toMatch(/accessToken/);
  });

  it("keeps a customer's idempotency keys apart by door: the same key and request over MCP and REST are two requests (inbox spec §9)", async () => {
    const client = await connect('/mcp');
    await client.listTools();
    const input = { ...haircutAt('2026-11-24T11:00:00Z'), idempotency_key: 'mcp-then-rest-1' };
    const viaMcp = await client.callTool({ name: 'create_booking', arguments: input });
    expect(viaMcp.isError).toBeFalsy();
    const created = viaMcp.structuredContent as { id: string; accessToken: string };
    expect(created.id).toMatch(/\S/);
    expect(JSON.parse(textOf(viaMcp as CallToolResult))).toEqual(created);

    // REST never replays the MCP answer (nor shows its token): it is the REST door's own first request.
    const viaRest = await t.request('POST', '/v1/bookings', { body: input });
    expect(viaRest.status).toBe(201);
    expect(viaRest.headers.get('idempotent-replayed')).toBeNull();
    expect(viaRest.body.id).not.toBe(created.id);
    expect(viaRest.body.accessToken).not.toBe(created.accessToken);

    // Each door's retry is its own replay.
    const mcpRetry = await client.callTool({ name: 'create_booking', arguments: input });
    expect(mcpRetry.structuredContent).toEqual(created);
    const restRetry = await t.request('POST', '/v1/bookings', { body: input });
    expect(restRetry.status).toBe(200);
    expect(restRetry.body).toEqual(viaRest.body);

    const status = await client.callTool({ name: 'get_item_status', arguments: { id: created.id, access_token: created.accessToken } });
    expect(status.isError).toBeFalsy();
    expect((status.structuredContent as { id: string }).id).toBe(created.id);
  });

  it('refuses another request under a key already used on the same door, and nothing is made', async () => {
    const bookings = async () => (await t.owner('GET', '/v1/owner/items?type=booking&open_only=false&limit=100')).body.items.length as number;
    const client = await connect('/mcp');
    await client.listTools();
    const first = await client.callTool({ name: 'create_booking', arguments: { ...haircutAt('2026-11-24T12:00:00Z'), idempotency_key: 'mcp-mismatch-1' } });
    expect(first.isError).toBeFalsy();
    const before = await bookings();
    const other = (await client.callTool({
      name: 'create_booking',
      arguments: { ...haircutAt('2026-11-24T16:00:00Z'), idempotency_key: 'mcp-mismatch-1' },
    })) as CallToolResult;
    expect(other.isError).toBe(true);
    expect((other.structuredContent as { error: { code: string } }).error.code).toBe('idempotency_mismatch');
    expect(await bookings()).toBe(before);
  });

  it('refuses bad input with the REST problem document in structuredContent.error and names the fields', async () => {
    const client = await connect('/mcp');
    const bad = { payload: { serviceId: 'haircut' }, contact: { name: 'Ana Silva', email: 'ana@example.com' } };
    // The SDK's own client checks structuredContent against the published outputSchema (after
    // listTools), refusals included: the refusal shape is part of what is published.
    await client.listTools();
    const result = (await client.callTool({ name: 'create_booking', arguments: bad })) as CallToolResult;
    expect(result.isError).toBe(true);
    const error = (result.structuredContent as { error: { code: string; fields: { path: string }[] } }).error;
    expect(error.code).toBe('invalid_input');
    expect(error.fields.map((f) => f.path)).toContain('payload.startTime');
    expect(textOf(result)).toMatch(/Fix: .*payload\.startTime/);

    const rest = await t.request('POST', '/v1/bookings', { body: bad });
    expect(rest.status).toBe(422);
    expect(error).toEqual(rest.body);
  });

  it('answers GET and DELETE with 405 problems', async () => {
    for (const method of ['GET', 'DELETE']) {
      const r = await t.request(method, '/mcp');
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
      expect(r.body.code).toBe('method_not_allowed');
    }
  });
});

describe('server instructions', () => {
  /** Every snake_case word of the instructions must be a tool of that server or one of its arguments. */
  function namedButUnknown(instructions: string, tools: { name: string; inputSchema: { properties?: object } }[]): string[] {
    const known = new Set(tools.flatMap((tool) => [tool.name, ...Object.keys(tool.inputSchema.properties ?? {})]));
    return [...new Set(instructions.match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? [])].filter((word) => !known.has(word));
  }

  it('tell a customer agent how to book, order, ask and follow up, naming only real tools and arguments', async () => {
    const client = await connect('/mcp');
    const instructions = client.getInstructions() ?? '';
    expect(instructions.length).toBeLessThan(2000);
    for (const tool of ['check_availability', 'create_booking', 'create_order', 'request_quote', 'send_message', 'get_item_status', 'accept_offer', 'cancel_item']) {
      expect(instructions).toContain(tool);
    }
    expect(instructions).toMatch(/idempotency_key/);
    expect(instructions).toMatch(/not instructions/);
    expect(namedButUnknown(instructions, (await client.listTools()).tools)).toEqual([]);
  });

  it('tell the owner\'s agent how to work the inbox, naming only real tools and arguments', async () => {
    const client = await connect('/mcp/owner', { authorization: `Bearer ${t.ownerKey}` });
    const instructions = client.getInstructions() ?? '';
    expect(instructions.length).toBeLessThan(2000);
    for (const tool of ['list_items', 'get_item', 'transition_item', 'reply']) expect(instructions).toContain(tool);
    expect(namedButUnknown(instructions, (await client.listTools()).tools)).toEqual([]);
  });
});

describe('the owner MCP server at /mcp/owner', () => {
  it('lists the owner operations and runs them with the Bearer owner key', async () => {
    const client = await connect('/mcp/owner', { authorization: `Bearer ${t.ownerKey}` });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(OWNER_OPERATIONS.map((op) => op.name));
    for (const op of OWNER_OPERATIONS) {
      const tool = tools.find((x) => x.name === op.name);
      expect(tool?.annotations).toEqual({ title: op.title, ...op.annotations });
      expect(tool?.inputSchema).toEqual(jsonSchemaOf(op.input, 'input'));
    }
    const list = await client.callTool({ name: 'list_items', arguments: { open_only: false, limit: 100 } });
    expect(list.isError).toBeFalsy();
    const items = (list.structuredContent as { items: { id: string }[] }).items;
    const rest = await t.owner('GET', '/v1/owner/items?open_only=false&limit=100');
    expect(items.map((i) => i.id)).toEqual(rest.body.items.map((i: { id: string }) => i.id));
    expect(items.length).toBeGreaterThan(0);

    const item = await client.callTool({ name: 'get_item', arguments: { id: items[0]?.id } });
    expect(item.isError).toBeFalsy();

    // An item made through the public MCP door carries its channel.
    const customer = await connect('/mcp');
    const made = await customer.callTool({ name: 'create_booking', arguments: { ...haircutAt('2026-11-24T14:00:00Z'), idempotency_key: 'mcp-channel-1' } });
    expect(made.isError).toBeFalsy();
    const seen = await client.callTool({ name: 'get_item', arguments: { id: (made.structuredContent as { id: string }).id } });
    expect((seen.structuredContent as { channel: string }).channel).toBe('mcp_public');
  });

  it('makes one write of an owner call over MCP and its retry over REST with the same key', async () => {
    const client = await connect('/mcp/owner', { authorization: `Bearer ${t.ownerKey}` });
    await client.listTools();
    const service = { id: 'fringe-trim', name: 'Fringe trim', durationMinutes: 15, priceModel: 'fixed', price: 800 };
    const viaMcp = await client.callTool({ name: 'upsert_service', arguments: { service, idempotency_key: 'owner-mcp-then-rest' } });
    expect(viaMcp.isError).toBeFalsy();

    const viaRest = await t.owner('POST', '/v1/owner/services', { body: { service }, headers: { 'idempotency-key': 'owner-mcp-then-rest' } });
    expect(viaRest.status).toBe(200);
    expect(viaRest.headers.get('idempotent-replayed')).toBe('true');
    expect(viaRest.body).toEqual(viaMcp.structuredContent);

    // The key names that request: another one under it is refused on either door, and nothing changes.
    const changed = { ...service, price: 900 };
    const restMismatch = await t.owner('POST', '/v1/owner/services', { body: { service: changed }, headers: { 'idempotency-key': 'owner-mcp-then-rest' } });
    expect(restMismatch.status).toBe(422);
    expect(restMismatch.body.code).toBe('idempotency_mismatch');
    const mcpMismatch = (await client.callTool({ name: 'upsert_service', arguments: { service: changed, idempotency_key: 'owner-mcp-then-rest' } })) as CallToolResult;
    expect(mcpMismatch.isError).toBe(true);
    expect((mcpMismatch.structuredContent as { error: unknown }).error).toEqual(restMismatch.body);
    const services = (await t.owner('GET', '/v1/owner/services?limit=100')).body.items as { id: string; price: number }[];
    expect(services.filter((s) => s.id === 'fringe-trim')).toEqual([expect.objectContaining({ price: 800 })]);
  });

  it('makes one reply of an owner reply over REST and its retry over MCP with the same key', async () => {
    const made = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-11-24T15:00:00Z') });
    expect(made.status).toBe(201);
    const body = { message: 'See you then.' };
    const viaRest = await t.owner('POST', `/v1/owner/items/${made.body.id}/replies`, { body, headers: { 'idempotency-key': 'owner-rest-then-mcp' } });
    expect(viaRest.status).toBe(201);

    const client = await connect('/mcp/owner', { authorization: `Bearer ${t.ownerKey}` });
    await client.listTools();
    const viaMcp = await client.callTool({ name: 'reply', arguments: { id: made.body.id, ...body, idempotency_key: 'owner-rest-then-mcp' } });
    expect(viaMcp.isError).toBeFalsy();
    expect(viaMcp.structuredContent).toEqual(viaRest.body);
    const item = await t.owner('GET', `/v1/owner/items/${made.body.id}`);
    expect(item.body.conversation.filter((m: { body?: string; text?: string }) => JSON.stringify(m).includes('See you then.'))).toHaveLength(1);
  });

  it('answers 401 with the protected-resource metadata without a valid key', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer svc_own_not_a_key' }];
    for (const headers of attempts) {
      const r = await t.request('POST', '/mcp/owner', { body: initialize, headers: { accept: 'application/json, text/event-stream', ...headers } });
      expect(r.status).toBe(401);
      // RFC 9728 §5.1: a Bearer challenge with the resource_metadata parameter (other parameters may come too).
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(r.headers.get('www-authenticate')).toContain('resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp/owner"');
      expect(r.body.code).toBe('unauthorized');
    }
    await expect(connect('/mcp/owner')).rejects.toThrow();
  });
});
