/**
 * A read_only key with scopes enforced can change nothing (issue 19, API5): every owner write of
 * the operation table, over REST and the owner MCP, with bodies fast-check makes (well-formed,
 * malformed, hostile), answers 403 not_allowed naming the scope before looking at the body; never a
 * 2xx and never a 5xx. Afterwards nothing the owner can see has changed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../src/operations/index.js';
import { startInbox, type TestInbox } from './support/harness.js';
import { makeKey, setSecurity, withKey } from './support/integration-keys.js';

let t: TestInbox;
let readOnly: ReturnType<typeof withKey>;
beforeAll(async () => {
  t = await startInbox();
  readOnly = withKey(t, (await makeKey(t, 'read_only')).key);
  await setSecurity(t, { enforceScopes: true });
});
afterAll(() => t.close());

const ownerWrites = OPERATIONS.filter((op) => op.audience === 'owner' && op.kind === 'write');
const RUNS = 12;

/** Bodies an attacker sends: objects with the operation's own field names holding anything, and plain junk. */
const bodyArbitrary = (fieldNames: string[]) =>
  fc.oneof(
    fc.dictionary(fc.constantFrom(...fieldNames, 'settings', 'scopes', 'url', 'event', '__proto__'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
    fc.jsonValue({ maxDepth: 2 }),
    fc.constant({}),
  );

const fieldsOf = (op: (typeof ownerWrites)[number]): string[] => {
  const shape = (op.input as unknown as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : ['name'];
};

const hasProtoKey = (value: unknown): boolean => JSON.stringify(value ?? null).includes('"__proto__"');

const pathOf = (template: string, id: string) => template.replace(/\{[^}]+\}/g, encodeURIComponent(id));

async function snapshot() {
  const [items, settings, keys, webhooks, rules] = await Promise.all([
    t.owner('GET', '/v1/owner/items?limit=100'),
    t.owner('GET', '/v1/owner/settings'),
    t.owner('GET', '/v1/owner/api-keys'),
    t.owner('GET', '/v1/owner/webhooks'),
    t.owner('GET', '/v1/owner/rules'),
  ]);
  // A key's use and its calls outside its scopes are recorded with every call (checked below); they are not what a write changes.
  return JSON.stringify([items.body, settings.body, keys.body, webhooks.body, rules.body], (name, value) =>
    /^(last_?used|calls_outside_scopes)/i.test(name) ? undefined : value,
  );
}

describe('a read_only key with scopes enforced', () => {
  // Some 400 refused calls, each recording the refusal against the key: a transaction each, a round trip each on PostgreSQL.
  it('is refused every owner write over REST, whatever the body, before the body is read', { timeout: 120_000 }, async () => {
    expect(ownerWrites.length).toBeGreaterThan(20);
    const before = await snapshot();
    for (const op of ownerWrites) {
      await fc.assert(
        fc.asyncProperty(bodyArbitrary(fieldsOf(op)), fc.stringMatching(/^[a-z0-9_-]{1,20}$/), async (body, id) => {
          t.clock.advance(100); // the key's own ten a second stay out of the way
          const r = await readOnly(op.http.method, pathOf(op.http.path, id), op.http.method === 'DELETE' ? {} : { body });
          // A "__proto__" key is refused by the JSON parser itself, before any route (400 bad_request).
          const expected = hasProtoKey(body) && op.http.method !== 'DELETE' ? [400, 'bad_request'] : [403, 'not_allowed'];
          expect([r.status, r.body.code], `${op.name} ${JSON.stringify(body)} -> ${JSON.stringify(r.body)}`).toEqual(expected);
        }),
        { numRuns: RUNS, seed: 19 },
      );
    }
    expect(await snapshot()).toBe(before);
    // Each refused call is recorded against the key, with the scope it lacked (logged-first made visible).
    const keys = await t.owner('GET', '/v1/owner/api-keys');
    const key = keys.body.items.find((k: any) => k.preset === 'read_only' || k.name === 'read_only key');
    expect(JSON.stringify(key)).toContain('calls_outside_scopes');
    expect(JSON.stringify(key)).toContain('integrations:write');
  });

  it('is refused every owner write tool over the owner MCP', async () => {
    const before = await snapshot();
    const headers = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    let id = 0;
    for (const op of ownerWrites) {
      await fc.assert(
        fc.asyncProperty(bodyArbitrary(fieldsOf(op)), async (args) => {
          t.clock.advance(100);
          const r = await readOnly('POST', '/mcp/owner', {
            body: { jsonrpc: '2.0', id: (id += 1), method: 'tools/call', params: { name: op.name, arguments: typeof args === 'object' && args !== null && !Array.isArray(args) ? args : {} } },
            headers,
          });
          if (hasProtoKey(args)) {
            expect(r.status).toBe(400);
            return;
          }
          expect(r.status).toBe(200);
          expect(r.body.result?.isError, `${op.name}`).toBe(true);
          expect(r.body.result.structuredContent.error.code, `${op.name} ${JSON.stringify(args)}`).toBe('not_allowed');
        }),
        { numRuns: 4, seed: 19 },
      );
    }
    expect(await snapshot()).toBe(before);
  });
});
