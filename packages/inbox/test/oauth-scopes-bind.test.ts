/**
 * What the owner ticks on the consent page binds the AI app (issue 12, docs/oauth.md "Granted
 * scopes bind the app"): with security.enforceScopes off, an app granted `inbox:read inbox:write
 * events:read` is still refused get_settings and create_webhook over the owner MCP (403 not_allowed
 * naming the scope), each refusal recorded under the app; the consent page says so in plain words.
 * Keys keep the contract's log-first behaviour (scopes.test.ts).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerConsent, openConsent, pkcePair, postForm, startOAuthInbox, type OAuthInbox } from './support/oauth-harness.js';

const REDIRECT = 'https://app.example/callback';
const GRANTED = 'inbox:read inbox:write events:read';

let t: OAuthInbox;

beforeAll(async () => {
  t = await startOAuthInbox();
});
afterAll(async () => {
  await t.close();
});

async function consentPage(clientName: string) {
  const made = await fetch(`${t.baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: clientName, redirect_uris: [REDIRECT] }),
  });
  expect(made.status).toBe(201);
  const clientId = ((await made.json()) as { client_id: string }).client_id;
  const { verifier, challenge } = pkcePair();
  const search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: GRANTED,
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: `${t.baseUrl}/mcp/owner`,
  });
  const page = await openConsent(`${t.baseUrl}/oauth/authorize?${search.toString()}`);
  expect(page.status).toBe(200);
  return { clientId, verifier, page };
}

async function connectApp(clientName: string): Promise<string> {
  const { clientId, verifier, page } = await consentPage(clientName);
  const answer = await answerConsent(t.baseUrl, page, { decision: 'approve', ownerKey: t.ownerKey });
  expect(answer.status).toBe(303);
  const code = answer.location!.searchParams.get('code')!;
  const tokens = await postForm(t.baseUrl, '/oauth/token', { grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT });
  expect(tokens.status).toBe(200);
  expect(tokens.body.scope).toBe(GRANTED);
  return tokens.body.access_token as string;
}

describe('the consent page', () => {
  it('says plainly that what is left ticked binds the app', async () => {
    const { page } = await consentPage('Careful app');
    const text = page.html.replace(/<[^>]+>/g, '');
    expect(text).toContain('It can do only what you leave ticked. Anything else it tries is refused');
    expect(text).toContain('listed under the app in your connected AI apps');
    expect(page.scopes).toEqual(GRANTED.split(' '));
  });
});

describe('an AI app over the owner MCP with an OAuth token', () => {
  type ToolAnswer = { isError?: boolean; structuredContent?: { error?: Record<string, unknown> } & Record<string, unknown> };

  it('is refused tools outside its grant with enforceScopes off, each refusal recorded under it', async () => {
    const settings = await t.owner('GET', '/v1/owner/settings');
    expect(settings.body.settings.security.enforceScopes).toBe(false);

    const token = await connectApp('Scoped assistant');
    const client = new Client({ name: 'scoped-assistant', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp/owner`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      const items = (await client.callTool({ name: 'list_items', arguments: {} })) as ToolAnswer;
      expect(items.isError).toBeFalsy();

      const read = (await client.callTool({ name: 'get_settings', arguments: {} })) as ToolAnswer;
      expect(read.isError).toBe(true);
      expect(read.structuredContent?.error).toMatchObject({ status: 403, code: 'not_allowed', scope: 'settings:read' });
      expect(read.structuredContent?.error?.detail).toMatch(/get_settings needs scope settings:read, which this AI app does not have/);

      const hook = (await client.callTool({ name: 'create_webhook', arguments: { url: 'https://hooks.example/inbox' } })) as ToolAnswer;
      expect(hook.isError).toBe(true);
      expect(hook.structuredContent?.error).toMatchObject({ status: 403, code: 'not_allowed', scope: 'integrations:write' });
    } finally {
      await client.close();
    }

    // Nothing was made, and the owner sees what the app tried.
    expect((await t.owner('GET', '/v1/owner/webhooks')).body.items).toEqual([]);
    const apps = await t.owner('GET', '/v1/owner/ai-apps');
    const app = apps.body.items.find((a: { name: string }) => a.name === 'Scoped assistant');
    expect(app.scopes).toEqual(GRANTED.split(' '));
    expect(app.calls_outside_scopes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ operation: 'get_settings', scope: 'settings:read', calls: 1, refused: 1 }),
        expect.objectContaining({ operation: 'create_webhook', scope: 'integrations:write', calls: 1, refused: 1 }),
      ]),
    );
    expect(app.calls_outside_scopes).toHaveLength(2);
  });

  it('is refused the same over REST', async () => {
    const token = await connectApp('REST assistant');
    const r = await t.request('GET', '/v1/owner/settings', { headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'not_allowed', scope: 'settings:read' });
    expect((await t.request('GET', '/v1/owner/items', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });
});
