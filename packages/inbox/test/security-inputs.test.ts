/**
 * Strict inputs (issue 19, docs/security.md "Strict inputs"), over HTTP and, where the operation has
 * a tool, over the public and owner MCP doors. Every refusal is checked for its status, its code and
 * the field it names, and for what it left stored: nothing.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInbox, type Inbox } from '../src/app.js';
import { createOwnerKey } from '../src/domain/access/api-keys.js';
import { startInboxFromEnvironment } from '../src/main.js';
import { startDirectory } from '../../directory/test/support/harness.js';
import { haircutAt, startInbox, type TestInbox } from './support/harness.js';
import { makeKey, setSecurity, withKey } from './support/integration-keys.js';
import { dropTestDatabase, testDatabaseUrl } from '../../../test-support/test-database.js';

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

const settingsNow = async (): Promise<unknown> => (await raw('GET', '/v1/owner/settings')).body;

const keyCount = async (): Promise<number> => (await raw('GET', '/v1/owner/api-keys?limit=100')).body.items.length;

const webhooksNow = async (): Promise<any[]> => (await raw('GET', '/v1/owner/webhooks')).body.items;

/** A start inside the demo's opening hours; a refused text never gets as far as availability. */
function freeStart(): string {
  return '2026-12-01T10:00:00Z';
}

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

describe('2. control and text-direction characters are refused in every text', () => {
  const ESC = '\u001b';
  const bad = {
    nul: 'Ana\u0000Silva',
    escape: `Hello ${ESC}[2J there`,
    rlo: 'invoice\u202Etxt.exe',
    rlm: 'name\u200F',
    isolate: 'x\u2066y\u2069',
    c1: 'next\u0085line',
    del: 'del\u007F',
    lone: 'half \uD800 a pair',
  };

  /** The answer never carries the bad character, escaped or raw. */
  function expectNotEchoed(text: string, value: string): void {
    for (const ch of value) {
      const code = ch.codePointAt(0) ?? 0;
      const unsafe = code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x200e || code === 0x200f || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || (code >= 0xd800 && code <= 0xdfff);
      if (!unsafe) continue;
      expect(text.includes(ch), `answer echoes U+${code.toString(16)}`).toBe(false);
      expect(text.toLowerCase().includes(`\\u${code.toString(16).padStart(4, '0')}`), `answer echoes \\u${code.toString(16)}`).toBe(false);
    }
  }

  const publicCases: [string, string, string, () => unknown, string][] = [
    ['a message (escape sequence)', 'POST', '/v1/messages', () => ({ message: bad.escape }), 'message'],
    ['a message (lone surrogate)', 'POST', '/v1/messages', () => ({ message: bad.lone }), 'message'],
    ['a contact name (NUL)', 'POST', '/v1/messages', () => ({ message: 'Hello', contact: { name: bad.nul } }), 'contact.name'],
    ['a contact name (newline: single line)', 'POST', '/v1/messages', () => ({ message: 'Hello', contact: { name: 'Ana\nSilva' } }), 'contact.name'],
    ['a subject (tab: single line)', 'POST', '/v1/messages', () => ({ message: 'Hello', payload: { subject: 'a\tb' } }), 'payload.subject'],
    ['a booking description (RLO)', 'POST', '/v1/bookings', () => haircutAt(freeStart(), { description: bad.rlo }), 'payload.description'],
    ['an order line name (DEL)', 'POST', '/v1/orders', () => ({ payload: { lines: [{ name: bad.del, quantity: 1 }] } }), 'payload.lines.0.name'],
    ['a quote description (C1)', 'POST', '/v1/quotes', () => ({ payload: { description: bad.c1 } }), 'payload.description'],
    ['an idempotency key (RLM)', 'POST', '/v1/messages', () => ({ message: 'Hello', idempotency_key: bad.rlm }), 'idempotency_key'],
  ];

  it.each(publicCases)('refuses %s over REST with 422 naming the field, stores and echoes nothing', async (_label, method, path, body, field) => {
    const before = await itemCount();
    const sent = body();
    const r = await raw(method, path, { key: null, body: sent });
    expectRefused(r, 422, 'invalid_input', field);
    expectNotEchoed(r.text, JSON.stringify(sent));
    expectNotEchoed(r.text, Object.values(bad).join(''));
    expect(await itemCount()).toBe(before);
  });

  it('keeps tab and line breaks in multi-line texts', async () => {
    const r = await raw('POST', '/v1/messages', { key: null, body: { message: 'Line one\nLine two\r\n\tindented', contact: { name: 'Ana Silva' } } });
    expect(r.status, r.text).toBe(201);
  });

  it('refuses them over the public MCP door the same way', async () => {
    const before = await itemCount();
    const client = await connect('/mcp');
    const booking = await tool(client, 'create_booking', haircutAt(freeStart(), { description: bad.isolate }));
    expectToolRefused(booking, 422, 'invalid_input', 'payload.description');
    expectNotEchoed(booking.text, bad.isolate);
    const message = await tool(client, 'send_message', { message: bad.escape, contact: { name: 'Ana' } });
    expectToolRefused(message, 422, 'invalid_input', 'message');
    expectNotEchoed(message.text, bad.escape);
    expect(await itemCount()).toBe(before);
  });

  it('refuses them in owner inputs over REST: profile, services, closures, replies, keys, webhooks, settings keys, query', async () => {
    const made = await raw('POST', '/v1/messages', { key: null, body: { message: 'Is there parking?' } });
    expect(made.status).toBe(201);
    const itemId = made.body.id as string;
    const profile = (await raw('GET', '/v1/owner/profile')).body;
    const services = (await raw('GET', '/v1/owner/services?limit=100')).body;
    const availability = (await raw('GET', '/v1/owner/availability')).body;
    const item = (await raw('GET', `/v1/owner/items/${itemId}`)).body;
    const settings = await settingsNow();
    const keys = await keyCount();
    const webhooks = await webhooksNow();

    const cases: [string, string, unknown, string][] = [
      ['PATCH', '/v1/owner/profile', { profile: { name: bad.rlo } }, 'profile.name'],
      ['PATCH', '/v1/owner/profile', { profile: { address: { streetAddress: bad.c1 } } }, 'profile.address.streetAddress'],
      ['POST', '/v1/owner/services', { service: { name: bad.nul, durationMinutes: 30, priceModel: 'none' } }, 'service.name'],
      ['PUT', '/v1/owner/availability/closures', { closures: [{ startDate: '2026-12-30', endDate: '2026-12-31', reason: bad.isolate }] }, 'closures.0.reason'],
      ['POST', `/v1/owner/items/${itemId}/replies`, { message: bad.escape }, 'message'],
      ['POST', '/v1/owner/api-keys', { name: bad.rlm, preset: 'read_only' }, 'name'],
      ['POST', '/v1/owner/webhooks', { url: 'https://hooks.example.com/in', headers: { 'x-token': 'a\r\nInjected: yes' } }, 'headers.x-token'],
      ['POST', '/v1/owner/webhooks', { url: 'https://hooks.example.com/in', headers: { [`x-${ESC}`]: 'a' } }, 'headers'],
      ['PUT', '/v1/owner/settings', { settings: { networks: { [`https://dir.example${ESC}`]: { enabled: false } } } }, 'settings.networks'],
      ['POST', `/v1/owner/items/${itemId}/transitions`, { event: 'close', reason: bad.lone }, 'reason'],
    ];
    for (const [method, path, body, field] of cases) {
      const r = await raw(method, path, { body });
      expectRefused(r, 422, 'invalid_input', field);
      expectNotEchoed(r.text, JSON.stringify(body));
      expectNotEchoed(r.text, Object.values(bad).join('') + ESC);
    }
    const query = await raw('GET', `/v1/owner/items?q=${encodeURIComponent(bad.rlo)}`);
    expectRefused(query, 422, 'invalid_input', 'q');

    expect((await raw('GET', '/v1/owner/profile')).body).toEqual(profile);
    expect((await raw('GET', '/v1/owner/services?limit=100')).body).toEqual(services);
    expect((await raw('GET', '/v1/owner/availability')).body).toEqual(availability);
    expect((await raw('GET', `/v1/owner/items/${itemId}`)).body).toEqual(item);
    expect(await settingsNow()).toEqual(settings);
    expect(await keyCount()).toBe(keys);
    expect(await webhooksNow()).toEqual(webhooks);
  });

  it('refuses them in what an OAuth client registers (its name is shown on the consent page)', async () => {
    for (const metadata of [
      { client_name: `Helper${bad.rlo}`, redirect_uris: ['https://app.example/callback'] },
      { client_name: 'Helper', redirect_uris: [`https://app.example/${ESC}callback`] },
    ]) {
      const r = await raw('POST', '/oauth/register', { key: null, body: metadata });
      expect(r.status, r.text).toBe(400);
      expect(r.body.error).toBe('invalid_client_metadata');
      expectNotEchoed(r.text, JSON.stringify(metadata));
    }
  });

  it('refuses them over the owner MCP door the same way', async () => {
    const client = await connect('/mcp/owner');
    const keys = await keyCount();
    const profile = (await raw('GET', '/v1/owner/profile')).body;
    const key = await tool(client, 'create_api_key', { name: `Calendar ${bad.escape}`, preset: 'calendar_sync' });
    expectToolRefused(key, 422, 'invalid_input', 'name');
    expectNotEchoed(key.text, bad.escape);
    const named = await tool(client, 'update_profile', { profile: { description: `We cut hair${bad.rlo}` } });
    expectToolRefused(named, 422, 'invalid_input', 'profile.description');
    expect(await keyCount()).toBe(keys);
    expect((await raw('GET', '/v1/owner/profile')).body).toEqual(profile);
  });
});

describe('3. settings.networks takes https origins only, in their origin form', () => {
  it.each([
    ['a javascript: URL', 'javascript:alert(1)'],
    ['an ftp origin', 'ftp://dir.example'],
    ['a plain http origin', 'http://dir.example'],
    ['a path', 'https://dir.example/v1/instances'],
    ['a query', 'https://dir.example/?x=1'],
    ['a fragment', 'https://dir.example/#top'],
    ['credentials', 'https://user:secret@dir.example'],
    ['a backslash', 'https://dir.example\\@evil.example'],
    ['loopback without the development setting', 'http://127.0.0.1:8788'],
    ['not a URL', 'not a url'],
  ])('refuses %s with 422 naming settings.networks, storing nothing', async (_label, origin) => {
    const before = await settingsNow();
    const r = await raw('PUT', '/v1/owner/settings', { body: { settings: { networks: { [origin]: { enabled: true } }, orders: { payDays: 3 } } } });
    expectRefused(r, 422, 'invalid_input', 'settings.networks');
    expect(await settingsNow()).toEqual(before);
  });

  it('refuses a field a network entry does not have', async () => {
    const before = await settingsNow();
    const r = await raw('PUT', '/v1/owner/settings', { body: { settings: { networks: { 'https://dir.example': { enabled: true, trust: 'all' } } } } });
    expectRefused(r, 422, 'invalid_input', 'settings.networks.https://dir.example.trust');
    expect(await settingsNow()).toEqual(before);
  });

  it('stores an origin in its normal form, so one network is one entry, and removes it by any spelling', async () => {
    const r = await raw('PUT', '/v1/owner/settings', { body: { settings: { networks: { 'HTTPS://Dir.Example:443/': { enabled: false } } } } });
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.body.settings.networks)).toEqual(['https://dir.example']);
    const again = await raw('PUT', '/v1/owner/settings', { body: { settings: { networks: { 'https://dir.example': { enabled: false, issue: true } } } } });
    expect(again.body.settings.networks).toEqual({ 'https://dir.example': { enabled: false, issue: true } });
    const removed = await raw('PUT', '/v1/owner/settings', { body: { settings: { networks: { 'https://DIR.example/': null } } } });
    expect(removed.body.settings.networks).toEqual({});
  });

  it('stops a start whose INBOX_DIRECTORY_URL names no network, saying why', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'inbox-directory-url-'));
    try {
      for (const url of ['http://dir.example', 'http://127.0.0.1:8788']) {
        await expect(startInboxFromEnvironment({ DATA_DIR: dataDir, INBOX_PORT: '0', INBOX_DIRECTORY_URL: url })).rejects.toThrow(/INBOX_DIRECTORY_URL .*https/);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('takes a loopback origin over http when the development setting allowLocalNetworks is on', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'inbox-local-networks-'));
    const inbox: Inbox = await buildInbox({ dataDir, databaseUrl: await testDatabaseUrl('inbox', dataDir), publicBaseUrl: 'http://127.0.0.1', logLevel: 'silent', runJobs: false, allowLocalNetworks: true });
    try {
      const key = (await createOwnerKey(inbox.store, 'owner', Date.now())).value;
      const base = await inbox.http.listen({ host: '127.0.0.1', port: 0 });
      const put = (networks: Record<string, unknown>) =>
        fetch(`${base}/v1/owner/settings`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ settings: { networks } }),
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
      const local = await put({ 'http://127.0.0.1:8788/': { enabled: false }, 'http://localhost:8789': { enabled: false } });
      expect(local.status, JSON.stringify(local.body)).toBe(200);
      expect(Object.keys(local.body.settings.networks).sort()).toEqual(['http://127.0.0.1:8788', 'http://localhost:8789']);
      // Only loopback: another host still needs https.
      expectRefused(await put({ 'http://dir.example': { enabled: false } }), 422, 'invalid_input', 'settings.networks');
    } finally {
      await inbox.close();
      rmSync(dataDir, { recursive: true, force: true });
      await dropTestDatabase('inbox', dataDir);
    }
  });
});

describe('4. webhook URLs: one WHATWG form, no backslash, no credentials, https', () => {
  it.each([
    ['a backslash', 'https://hooks.example.com\\@evil.example/x'],
    ['credentials', 'https://user:pass@hooks.example.com/x'],
    ['a user name alone', 'https://user@hooks.example.com/x'],
    ['plain http', 'http://hooks.example.com/x'],
    ['another scheme', 'ftp://hooks.example.com/x'],
  ])('refuses %s on create with 422 naming url, storing nothing', async (_label, url) => {
    const before = await webhooksNow();
    const r = await raw('POST', '/v1/owner/webhooks', { body: { url } });
    expectRefused(r, 422, 'invalid_input', 'url');
    expect(await webhooksNow()).toEqual(before);
  });

  it('stores the normal form on create and on update, and refuses a bad one on update', async () => {
    const made = await raw('POST', '/v1/owner/webhooks', { body: { url: 'HTTPS://Hooks.Example.COM:443/a/../in?x=1' } });
    expect(made.status, made.text).toBe(201);
    expect(made.body.url).toBe('https://hooks.example.com/in?x=1');
    const id = made.body.id as string;
    expect((await raw('GET', `/v1/owner/webhooks/${id}`)).body.url).toBe('https://hooks.example.com/in?x=1');

    const changed = await raw('PATCH', `/v1/owner/webhooks/${id}`, { body: { url: 'https://HOOKS.example.com/./next' } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.url).toBe('https://hooks.example.com/next');

    for (const url of ['https://hooks.example.com\\@evil.example/x', 'https://a:b@hooks.example.com/x', 'http://hooks.example.com/x']) {
      const refused = await raw('PATCH', `/v1/owner/webhooks/${id}`, { body: { url } });
      expectRefused(refused, 422, 'invalid_input', 'url');
    }
    expect((await raw('GET', `/v1/owner/webhooks/${id}`)).body.url).toBe('https://hooks.example.com/next');
    expect((await raw('DELETE', `/v1/owner/webhooks/${id}`)).status).toBe(200);
  });
});

describe('5. owner writes refuse what they do not know', () => {
  it.each([
    ['a scopes list (scopes come from the preset)', { name: 'CI', preset: 'read_only', scopes: ['keys:write'] }, 'scopes'],
    ['an unknown preset', { name: 'CI', preset: 'superuser' }, 'preset'],
    ['an unknown field', { name: 'CI', preset: 'read_only', admin: true }, 'admin'],
  ])('create_api_key refuses %s with 422 naming it, over REST and MCP, making no key', async (_label, body, field) => {
    const before = await keyCount();
    expectRefused(await raw('POST', '/v1/owner/api-keys', { body }), 422, 'invalid_input', field);
    expectToolRefused(await tool(await connect('/mcp/owner'), 'create_api_key', body), 422, 'invalid_input', field);
    expect(await keyCount()).toBe(before);
  });

  it('names an unknown field holding such a character escaped, never as sent', async () => {
    const r = await raw('POST', '/v1/owner/api-keys', { body: { name: 'ci', preset: 'read_only', 'sco\u202Epes': ['keys:write'] } });
    expect(r.status, r.text).toBe(422);
    expect(r.text.includes('\u202E')).toBe(false);
    expect(r.text.toLowerCase().includes('\\u202e')).toBe(false);
    expect(r.body.fields[0].path).toBe('sco\\u{202E}pes');
  });

  it('other owner writes refuse an unknown field too, over REST and MCP', async () => {
    const profile = (await raw('GET', '/v1/owner/profile')).body;
    const webhooks = await webhooksNow();
    expectRefused(await raw('PATCH', '/v1/owner/profile', { body: { profile: { name: 'Renamed' }, publish: true } }), 422, 'invalid_input', 'publish');
    expectRefused(await raw('POST', '/v1/owner/webhooks', { body: { url: 'https://hooks.example.com/in', secret: 'whsec_mine' } }), 422, 'invalid_input', 'secret');
    expectToolRefused(await tool(await connect('/mcp/owner'), 'update_profile', { profile: { name: 'Renamed' }, publish: true }), 422, 'invalid_input', 'publish');
    expect((await raw('GET', '/v1/owner/profile')).body).toEqual(profile);
    expect(await webhooksNow()).toEqual(webhooks);
  });

  it("refuses input an item event does not take, rather than dropping it", async () => {
    const made = await raw('POST', '/v1/bookings', { key: null, body: haircutAt('2026-11-26T15:00:00Z') });
    expect(made.status, made.text).toBe(201);
    const id = made.body.id as string;
    const before = (await raw('GET', `/v1/owner/items/${id}`)).body;
    const propose = await raw('POST', `/v1/owner/items/${id}/transitions`, {
      body: { event: 'propose', input: { startTime: '2026-11-26T16:00:00Z', discount: 50 } },
    });
    expectRefused(propose, 422, 'invalid_input', 'input.discount');
    const decline = await raw('POST', `/v1/owner/items/${id}/transitions`, { body: { event: 'decline', input: { price: 0 } } });
    expectRefused(decline, 422, 'invalid_input', 'input.price');
    expect((await raw('GET', `/v1/owner/items/${id}`)).body).toEqual(before);
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
