/**
 * Strict inputs (issue 19, docs/security.md "Strict inputs"), over HTTP and, where the operation has
 * a tool, over the public and owner MCP doors. Every refusal is checked for its status, its code and
 * the field it names, and for what it left stored: nothing.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDirectory } from '../../directory/test/support/harness.js';
import { haircutAt, startInbox, type TestInbox } from './support/harness.js';
import { makeKey, setSecurity, withKey } from './support/integration-keys.js';

interface RawAnswer {
  status: number;
  /** The answer exactly as sent, to check a bad character is never echoed. */
  text: string;
  body: any;
}

interface ToolAnswer {
  isError: boolean;
  error: any;
  /** Everything the tool result carries, as text. */
  text: string;
  content: any;
}

let t: TestInbox;
const clients: Client[] = [];

beforeAll(async () => {
  t = await startInbox();
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await t.close();
});

async function raw(method: string, path: string, options: { body?: unknown; key?: string | null; headers?: Record<string, string> } = {}): Promise<RawAnswer> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  const key = options.key === undefined ? t.ownerKey : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(`${t.baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  return { status: response.status, text, body: text.length > 0 && (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
}

async function connect(path: '/mcp' | '/mcp/owner', key: string | null = path === '/mcp/owner' ? t.ownerKey : null): Promise<Client> {
  const client = new Client({ name: 'security-inputs-test', version: '1' });
  const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}${path}`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const structured = result.structuredContent as { error?: unknown } | undefined;
  return { isError: result.isError === true, error: structured?.error, text: JSON.stringify(result), content: result.structuredContent };
}

/** A refusal with this status and code whose fields name `path` (or a path under it). */
function expectRefused(answer: { status: number; body: any }, status: number, code: string, path: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body.code).toBe(code);
  const paths: string[] = (answer.body.fields ?? []).map((f: { path: string }) => f.path);
  expect(paths.some((p) => p === path || p.startsWith(`${path}.`)), `fields ${paths.join(', ')} should name ${path}`).toBe(true);
}

function expectToolRefused(answer: ToolAnswer, status: number, code: string, path: string): void {
  expect(answer.isError, answer.text).toBe(true);
  expectRefused({ status: answer.error.status, body: answer.error }, status, code, path);
}

/** What the owner sees, to compare before and after a refusal. */
const itemCount = async (): Promise<number> => (await raw('GET', '/v1/owner/items?open_only=false&limit=100')).body.items.length;

const webhooksNow = async (): Promise<any[]> => (await raw('GET', '/v1/owner/webhooks')).body.items;

describe('1. a booking lasts at most the availability window', () => {
  const start = '2026-11-24T11:00:00Z';

  it.each([
    ['ten years after the start', '2036-11-24T11:00:00Z'],
    ['fourteen days and a minute after the start', '2026-12-08T11:01:00Z'],
    ['before the start', '2026-11-24T10:00:00Z'],
    ['at the start', start],
  ])('refuses an endTime %s with 422 on payload.endTime, over REST and MCP, storing nothing', async (_label, endTime) => {
    const before = await itemCount();
    const rest = await raw('POST', '/v1/bookings', { key: null, body: haircutAt(start, { endTime }) });
    expectRefused(rest, 422, 'invalid_input', 'payload.endTime');
    const mcp = await tool(await connect('/mcp'), 'create_booking', haircutAt(start, { endTime }));
    expectToolRefused(mcp, 422, 'invalid_input', 'payload.endTime');
    expect(await itemCount()).toBe(before);
  });

  it('still takes a fixed-price service booked for longer than it lasts: it waits for pricing', async () => {
    const longer = await raw('POST', '/v1/bookings', { key: null, body: haircutAt('2026-11-24T14:00:00Z', { endTime: '2026-11-24T15:30:00Z' }) });
    expect(longer.status, longer.text).toBe(201);
    expect(longer.body).toMatchObject({ needsHuman: true, payload: { durationMinutes: 90, price: null, priceStatus: 'awaiting_business' } });
  });

  it('leaves a long end inside the window to availability (409 slot_taken, past closing)', async () => {
    const r = await raw('POST', '/v1/bookings', { key: null, body: haircutAt('2026-11-25T11:00:00Z', { endTime: '2026-12-05T11:00:00Z' }) });
    expectRefused(r, 409, 'slot_taken', 'payload.endTime');
  });
});

describe('6. with enforceScopes on, the scope is checked before the body', () => {
  it('refuses a read_only key posting a malformed webhook with 403, not 422, over REST and MCP', async () => {
    const readOnly = await makeKey(t, 'read_only', 'scope-first');
    const call = withKey(t, readOnly.key);
    const malformed = { url: 42, events: 'everything', colour: 'red' };
    // Logged first (the default): the body is read and refused for what it is.
    expectRefused(await call('POST', '/v1/owner/webhooks', { body: malformed }), 422, 'invalid_input', 'url');

    await setSecurity(t, { enforceScopes: true });
    try {
      const before = await webhooksNow();
      const refused = await call('POST', '/v1/owner/webhooks', { body: malformed });
      expect(refused.status, JSON.stringify(refused.body)).toBe(403);
      expect(refused.body).toMatchObject({ code: 'not_allowed', scope: 'integrations:write' });
      expect(refused.body.fields).toBeUndefined();

      const viaMcp = await tool(await connect('/mcp/owner', readOnly.key), 'create_webhook', malformed);
      expect(viaMcp.isError).toBe(true);
      expect(viaMcp.error).toMatchObject({ status: 403, code: 'not_allowed' });
      expect(viaMcp.error.fields).toBeUndefined();
      expect(await webhooksNow()).toEqual(before);

      // Both refusals are recorded against the key.
      const misses = (await raw('GET', `/v1/owner/api-keys/${readOnly.id}`)).body.calls_outside_scopes;
      expect(misses).toEqual([expect.objectContaining({ operation: 'create_webhook', scope: 'integrations:write', calls: 3, refused: 2 })]);
    } finally {
      await setSecurity(t, { enforceScopes: false });
    }
  });

  it('refuses a call without a key for that, before reading its body', async () => {
    const r = await raw('POST', '/v1/owner/webhooks', { key: null, body: { url: 42 } });
    expect(r.status, r.text).toBe(401);
    expect(r.body.code).toBe('unauthorized');
  });
});

describe('7. a query parameter is sent once', () => {
  it.each([
    ['/v1/owner/items?limit=1&limit=100', 'limit', true],
    ['/v1/owner/items?q=ana&q=silva', 'q', true],
    ['/v1/services?limit=1&limit=2', 'limit', false],
    ['/v1/availability?service=haircut&service=colour&from=2026-11-24&to=2026-11-25', 'service', false],
  ])('refuses %s with 422 naming the parameter', async (path, field, owner) => {
    expectRefused(await raw('GET', path, { key: owner ? t.ownerKey : null }), 422, 'invalid_input', field);
  });

  it('lets a list parameter repeat (types on the event stream), and ignores one the operation does not take', async () => {
    expect((await raw('GET', '/v1/owner/events?types=booking.*&types=message.*&limit=5')).status).toBe(200);
    expect((await raw('GET', '/v1/owner/items?limit=5&utm=a&utm=b')).status).toBe(200);
  });

  it('is refused by the directory the same way, with its own 400', async () => {
    const directory = await startDirectory({ answerWorkers: 0 });
    try {
      const r = await directory.get('/v1/businesses?limit=1&limit=100');
      expectRefused(r, 400, 'bad_request', 'limit');
    } finally {
      await directory.close();
    }
  });
});
