/**
 * OAuth 2.1 for the owner's MCP, end to end with clients we did not write (issue 5): the MCP SDK's
 * own OAuth client (discovery from the 401, dynamic registration, PKCE, token, refresh) with its
 * Client and StreamableHTTPClientTransport over real HTTP, and oauth4webapi (which checks issuer,
 * `iss` and the token answer strictly) for a second app and for revocation. The owner's part, the
 * consent page, is played by a "browser" that reads the page and posts its form.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, discoverAuthorizationServerMetadata, refreshAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerConsent, MemoryOAuthProvider, openConsent, startOAuthInbox, type OAuthInbox } from './support/oauth-harness.js';
import { haircutAt } from './support/harness.js';

let t: OAuthInbox;
const clients: Client[] = [];
const insecure = { [oauth.allowInsecureRequests]: true };

beforeAll(async () => {
  t = await startOAuthInbox();
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await t.close();
});

async function connectWith(provider: MemoryOAuthProvider): Promise<Client> {
  const client = new Client({ name: 'oauth-flow-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp/owner`), { authProvider: provider }));
  clients.push(client);
  return client;
}

async function ownerItemsWith(token: string): Promise<number> {
  return (await t.request('GET', '/v1/owner/items', { headers: { authorization: `Bearer ${token}` } })).status;
}

describe('the MCP SDK client connects an AI app to /mcp/owner', () => {
  const provider = new MemoryOAuthProvider('http://127.0.0.1:53682/callback');
  let grantId = '';

  it('discovers, registers and sends the owner to the consent page from the first 401', async () => {
    const client = new Client({ name: 'oauth-flow-test', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp/owner`), { authProvider: provider });
    await expect(client.connect(transport)).rejects.toThrow(UnauthorizedError);

    expect(provider.client?.client_id).toMatch(/^svc_ocl_/);
    const url = provider.authorizationUrl;
    expect(url?.origin + (url?.pathname ?? '')).toBe(`${t.baseUrl}/oauth/authorize`);
    expect(url?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url?.searchParams.get('resource')).toBe(`${t.baseUrl}/mcp/owner`);

    const page = await openConsent(url!);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Test AI app');
    expect(page.html).toContain('127.0.0.1:53682');
    expect(page.html).toContain('Read your inbox');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // The SDK asks for what the resource metadata lists: every key scope.
    expect(page.scopes).toContain('inbox:write');

    const answer = await answerConsent(t.baseUrl, page, { decision: 'approve', ownerKey: t.ownerKey });
    expect(answer.status).toBe(303);
    const back = answer.location!;
    expect(`${back.origin}${back.pathname}`).toBe('http://127.0.0.1:53682/callback');
    expect(back.searchParams.get('state')).toBe(url?.searchParams.get('state'));
    expect(back.searchParams.get('iss')).toBe(t.baseUrl);
    const code = back.searchParams.get('code');
    expect(code).toMatch(/^svc_oac_/);

    await transport.finishAuth(code!);
    expect(provider.saved?.access_token).toMatch(/^svc_oat_/);
    expect(provider.saved?.refresh_token).toMatch(/^svc_ort_/);
    expect(provider.saved?.token_type).toBe('Bearer');
    expect(provider.saved?.expires_in).toBe(3600);
  });

  it('calls owner tools with the token, recorded as the AI app', async () => {
    const client = await connectWith(provider);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['list_items', 'list_ai_apps', 'revoke_ai_app']));

    const apps = await client.callTool({ name: 'list_ai_apps', arguments: {} });
    expect(apps.isError).toBeFalsy();
    const listed = (apps.structuredContent as { items: { id: string; name: string; active: boolean; redirect_hosts: string[] }[] }).items;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ name: 'Test AI app', active: true, redirect_hosts: ['127.0.0.1:53682'] });
    grantId = listed[0]!.id;
    const booking = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-11-24T11:00:00Z') });
    expect(booking.status).toBe(201);
    const confirmed = await client.callTool({ name: 'transition_item', arguments: { id: booking.body.id, event: 'confirm', reason: 'Slot is free' } });
    expect(confirmed.isError).toBeFalsy();
    const item = await t.owner('GET', `/v1/owner/items/${booking.body.id}`);
    const last = item.body.events[item.body.events.length - 1];
    expect(last.by).toEqual({ kind: 'owner_ai', id: grantId, name: 'Test AI app' });
    expect(last.channel).toBe('mcp_owner');

    // The owner sees the app with its last use.
    const owned = await t.owner('GET', '/v1/owner/ai-apps');
    expect(owned.status).toBe(200);
    expect(owned.body.items[0]).toMatchObject({ id: grantId, client_id: provider.client?.client_id, last_used_at: expect.any(String) });
  });

  it('keeps clients, grants and tokens across a restart', async () => {
    const { dataDir, port, ownerKey, clock } = t;
    await t.close({ removeData: false });
    t = await startOAuthInbox({ dataDir, port, ownerKey, clock });
    // The first request may meet a pooled connection to the old server; a client would retry.
    const status = await ownerItemsWith(provider.saved!.access_token).catch(() => ownerItemsWith(provider.saved!.access_token));
    expect(status).toBe(200);
    const client = await connectWith(provider);
    expect((await client.callTool({ name: 'list_items', arguments: {} })).isError).toBeFalsy();
  });

  it('refreshes with rotation, and a revoked refresh token ends the app', async () => {
    const metadata = await discoverAuthorizationServerMetadata(t.baseUrl);
    const first = provider.saved!;
    const rotated = await refreshAuthorization(t.baseUrl, {
      metadata,
      clientInformation: provider.client!,
      refreshToken: first.refresh_token!,
      resource: new URL(`${t.baseUrl}/mcp/owner`),
    });
    expect(rotated.access_token).toMatch(/^svc_oat_/);
    expect(rotated.refresh_token).toMatch(/^svc_ort_/);
    expect(rotated.refresh_token).not.toBe(first.refresh_token);
    expect(await ownerItemsWith(rotated.access_token)).toBe(200);

    // Revocation by an independent client (RFC 7009).
    const issuer = new URL(t.baseUrl);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    const asClient: oauth.Client = { client_id: provider.client!.client_id, token_endpoint_auth_method: 'none' };
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, asClient, oauth.None(), rotated.refresh_token!, insecure));

    expect(await ownerItemsWith(rotated.access_token)).toBe(401);
    expect(await ownerItemsWith(first.access_token)).toBe(401);
    await expect(
      refreshAuthorization(t.baseUrl, { metadata, clientInformation: provider.client!, refreshToken: rotated.refresh_token!, resource: new URL(`${t.baseUrl}/mcp/owner`) }),
    ).rejects.toThrow(/refresh token/i);
    const mcp = await fetch(`${t.baseUrl}/mcp/owner`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rotated.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toContain(`resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/mcp/owner"`);

    const apps = await t.owner('GET', '/v1/owner/ai-apps?include_revoked=true');
    expect(apps.body.items.find((app: { id: string }) => app.id === grantId)).toMatchObject({ active: false, revoked_reason: 'client' });
  });
});

describe('oauth4webapi connects a second app with narrower scopes', () => {
  it('runs discovery, registration, PKCE, consent, token, refresh and the owner cuts it off', async () => {
    const issuer = new URL(t.baseUrl);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    const redirectUri = 'https://assistant.example/oauth/callback';
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { redirect_uris: [redirectUri], client_name: 'Second assistant', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] },
        insecure,
      ),
    );
    const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: 'inbox:read settings:read',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: `${t.baseUrl}/mcp/owner`,
    }).toString();
    const page = await openConsent(url);
    expect(page.scopes).toEqual(['inbox:read', 'settings:read']);
    // The owner unticks settings:read.
    const answer = await answerConsent(t.baseUrl, page, { decision: 'approve', ownerKey: t.ownerKey, scopes: ['inbox:read'] });
    const params = oauth.validateAuthResponse(as, client, answer.location!, state);

    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, {
        ...insecure,
        additionalParameters: { resource: `${t.baseUrl}/mcp/owner` },
      }),
    );
    expect(tokens.scope).toBe('inbox:read');
    expect(tokens.token_type).toBe('bearer');

    const mcp = new Client({ name: 'second', version: '1' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp/owner`), { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } } }),
    );
    clients.push(mcp);
    expect((await mcp.callTool({ name: 'list_items', arguments: {} })).isError).toBeFalsy();

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
    );
    expect(refreshed.scope).toBe('inbox:read');
    expect(await ownerItemsWith(refreshed.access_token)).toBe(200);

    const apps = await t.owner('GET', '/v1/owner/ai-apps');
    const app = apps.body.items.find((a: { name: string }) => a.name === 'Second assistant');
    expect(app).toMatchObject({ scopes: ['inbox:read'], redirect_hosts: ['assistant.example'], active: true });
    const revoked = await t.owner('DELETE', `/v1/owner/ai-apps/${app.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ active: false, revoked_reason: 'owner' });
    expect(await ownerItemsWith(refreshed.access_token)).toBe(401);
    await expect(
      oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token!, insecure)),
    ).rejects.toThrow();
  });
});
