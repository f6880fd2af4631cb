/**
 * The owner MCP refuses calls from web pages of unknown origins (DNS rebinding, a page spending the
 * owner's key); the public MCP answers every page the same, like the public REST routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { originAllowed } from '@svc/shared';
import { startInbox, type TestInbox } from './support/harness.js';

let t: TestInbox;
beforeAll(async () => {
  t = await startInbox();
});
afterAll(async () => t.close());

const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const mcpHeaders = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

describe('Origin on the MCP doors', () => {
  it('refuses a page of another origin on the owner MCP with 403 not_allowed, before anything runs', async () => {
    const res = await t.request('POST', '/mcp/owner', { body: listTools, headers: { ...mcpHeaders, origin: 'https://evil.example', authorization: `Bearer ${t.ownerKey}` } });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.code).toBe('not_allowed');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves a page of any origin on the public MCP, readable cross-origin', async () => {
    const res = await t.request('POST', '/mcp', { body: listTools, headers: { ...mcpHeaders, origin: 'https://agent.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.body.result.tools.length).toBeGreaterThan(5);
  });

  it('serves calls without Origin, from loopback pages, and from the instance\'s own origin', async () => {
    for (const origin of [undefined, 'http://localhost:6274', 'http://127.0.0.1:5173', 'http://127.0.0.1']) {
      const headers: Record<string, string> = { ...mcpHeaders };
      if (origin) headers.origin = origin;
      const res = await t.request('POST', '/mcp', { body: listTools, headers });
      expect(res.status, origin ?? 'no origin').toBe(200);
      expect(res.body.result.tools.length).toBeGreaterThan(5);
    }
  });

  it('judges origins by scheme, host and port', () => {
    expect(originAllowed('https://shop.example', ['https://shop.example'])).toBe(true);
    expect(originAllowed('https://shop.example:8443', ['https://shop.example'])).toBe(false);
    expect(originAllowed('http://shop.example', ['https://shop.example'])).toBe(false);
    expect(originAllowed('null', ['https://shop.example'])).toBe(false);
    expect(originAllowed('file:///x', [])).toBe(false);
    expect(originAllowed('http://[::1]:3000', [])).toBe(true);
  });
});
