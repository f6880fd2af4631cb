/**
 * OAuth 2.1 for the owner's MCP: every refusal (docs/oauth.md). Metadata and the 401 challenge;
 * registration limits; authorization requests that cannot redirect and those refused by redirect;
 * the consent page (escaping, frame-busting, CSRF, wrong keys, deny); the token endpoint (PKCE,
 * single-use and expiring codes, redirect and client binding, resource indicators); refresh
 * rotation and reuse; revocation; the owner's list and revoke of AI apps; scopes recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneOAuth } from '../src/domain/access/oauth/maintenance.js';
import { RegistrationLimiter } from '../src/domain/access/oauth/registration-limiter.js';
import { matchRedirectUri } from '../src/domain/access/oauth/redirect-uris.js';
import { answerConsent, openConsent, pkcePair, postForm, startOAuthInbox, type OAuthInbox } from './support/oauth-harness.js';

const KEY_SCOPES = [
  'inbox:read',
  'inbox:write',
  'events:read',
  'catalogue:write',
  'availability:write',
  'settings:read',
  'settings:write',
  'setup:run',
  'integrations:write',
  'keys:write',
];
const REDIRECT = 'https://app.example/callback';

let t: OAuthInbox;
let resource: string;

beforeAll(async () => {
  t = await startOAuthInbox();
  resource = `${t.baseUrl}/mcp/owner`;
});
afterAll(() => t.close());

async function register(metadata: Record<string, unknown>) {
  const response = await fetch(`${t.baseUrl}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

async function newClient(extra: Record<string, unknown> = {}): Promise<string> {
  const made = await register({ client_name: 'Refusal tester', redirect_uris: [REDIRECT], ...extra });
  expect(made.status).toBe(201);
  return made.body.client_id as string;
}

function authorizeUrl(clientId: string, overrides: Record<string, string | null> = {}, challenge = pkcePair().challenge): string {
  const params: Record<string, string | null> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'inbox:read inbox:write',
    state: 'st-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource,
    ...overrides,
  };
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== null) search.set(name, value);
  return `${t.baseUrl}/oauth/authorize?${search.toString()}`;
}

async function authorizeRedirect(url: string): Promise<{ status: number; location: URL | null; text: string }> {
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location');
  return { status: response.status, location: location ? new URL(location) : null, text: await response.text() };
}

/** Runs the owner's approval and answers the code with its verifier. */
async function approvedCode(clientId: string, overrides: Record<string, string | null> = {}): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkcePair();
  const page = await openConsent(authorizeUrl(clientId, overrides, challenge));
  expect(page.status).toBe(200);
  const answer = await answerConsent(t.baseUrl, page, { decision: 'approve', ownerKey: t.ownerKey });
  expect(answer.status).toBe(303);
  return { code: answer.location!.searchParams.get('code')!, verifier };
}

function exchange(clientId: string, code: string, verifier: string, extra: Record<string, string> = {}) {
  return postForm(t.baseUrl, '/oauth/token', { grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT, ...extra });
}

async function tokensFor(clientId: string, overrides: Record<string, string | null> = {}) {
  const { code, verifier } = await approvedCode(clientId, overrides);
  const answer = await exchange(clientId, code, verifier);
  expect(answer.status).toBe(200);
  return answer.body as { access_token: string; refresh_token: string; scope: string; expires_in: number };
}

async function ownerItemsWith(token: string): Promise<number> {
  return (await t.request('GET', '/v1/owner/items', { headers: { authorization: `Bearer ${token}` } })).status;
}

describe('metadata and the 401 challenge', () => {
  it('publishes protected resource metadata for the owner MCP (RFC 9728)', async () => {
    const r = await t.request('GET', '/.well-known/oauth-protected-resource/mcp/owner');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ resource, authorization_servers: [t.baseUrl], scopes_supported: KEY_SCOPES, bearer_methods_supported: ['header'] });
  });

  it('publishes authorization server metadata (RFC 8414): S256 only, public clients, rotation, revocation', async () => {
    const r = await t.request('GET', '/.well-known/oauth-authorization-server');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      issuer: t.baseUrl,
      authorization_endpoint: `${t.baseUrl}/oauth/authorize`,
      token_endpoint: `${t.baseUrl}/oauth/token`,
      registration_endpoint: `${t.baseUrl}/oauth/register`,
      revocation_endpoint: `${t.baseUrl}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      scopes_supported: KEY_SCOPES,
    });
    const manifest = await t.request('GET', '/.well-known/agent-inbox.json');
    expect(manifest.body.oauth).toEqual({
      protected_resource_metadata: `${t.baseUrl}/.well-known/oauth-protected-resource/mcp/owner`,
      authorization_server_metadata: `${t.baseUrl}/.well-known/oauth-authorization-server`,
    });
  });

  it('points 401s on /v1/owner and /mcp/owner at the resource metadata', async () => {
    const pointer = `resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/mcp/owner"`;
    const none = await t.request('GET', '/v1/owner/items');
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('unauthorized');
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(none.headers.get('www-authenticate')).toContain(pointer);
    const wrong = await t.request('GET', '/v1/owner/items', { headers: { authorization: 'Bearer svc_oat_not-a-token' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(wrong.headers.get('www-authenticate')).toContain(pointer);
    const mcp = await t.request('POST', '/mcp/owner', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toContain(pointer);
  });
});

describe('registration (RFC 7591)', () => {
  it('registers a public client and says so', async () => {
    const made = await register({ client_name: 'Helper', redirect_uris: [REDIRECT, 'http://localhost:8976/cb'], token_endpoint_auth_method: 'client_secret_basic', scope: 'inbox:read' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      client_id: expect.stringMatching(/^svc_ocl_/),
      client_name: 'Helper',
      redirect_uris: [REDIRECT, 'http://localhost:8976/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: 'inbox:read',
    });
    expect(made.body).not.toHaveProperty('client_secret');
  });

  it.each([
    ['no redirect URI', { redirect_uris: [] }, 'invalid_redirect_uri'],
    ['http to a public host', { redirect_uris: ['http://app.example/cb'] }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://app.example/cb#x'] }, 'invalid_redirect_uri'],
    ['a custom scheme', { redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    ['too many redirect URIs', { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`) }, 'invalid_redirect_uri'],
    ['an over-long redirect URI', { redirect_uris: [`https://app.example/${'a'.repeat(2000)}`] }, 'invalid_redirect_uri'],
    ['an over-long name', { redirect_uris: [REDIRECT], client_name: 'n'.repeat(101) }, 'invalid_client_metadata'],
    ['an unknown scope', { redirect_uris: [REDIRECT], scope: 'inbox:read admin' }, 'invalid_client_metadata'],
    ['the implicit grant', { redirect_uris: [REDIRECT], grant_types: ['implicit'] }, 'invalid_client_metadata'],
    ['a token response type', { redirect_uris: [REDIRECT], response_types: ['token'] }, 'invalid_client_metadata'],
    ['a private_key_jwt client', { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
  ])('refuses %s', async (_what, metadata, error) => {
    const made = await register(metadata);
    expect(made.status).toBe(400);
    expect(made.body.error).toBe(error);
    expect(made.body.error_description).toEqual(expect.any(String));
  });

  it('refuses bad JSON and a form body with an OAuth error, not a problem document', async () => {
    const bad = await fetch(`${t.baseUrl}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"redirect_uris":' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/json');
    expect(((await bad.json()) as { error: string }).error).toBe('invalid_request');
    const form = await postForm(t.baseUrl, '/oauth/register', { redirect_uris: REDIRECT });
    expect(form.status).toBe(400);
    expect(form.body.error).toBe('invalid_client_metadata');
  });

  it('limits registrations per address and window', () => {
    const limiter = new RegistrationLimiter(3, 60_000);
    expect([0, 1, 2].map(() => limiter.take('203.0.113.9', 1_000))).toEqual([0, 0, 0]);
    expect(limiter.take('203.0.113.9', 1_000)).toBe(60);
    expect(limiter.take('198.51.100.1', 1_000)).toBe(0);
    expect(limiter.take('203.0.113.9', 61_000)).toBe(0);
  });
});

describe('authorization requests', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = await newClient();
  });

  it('shows an error page, never a redirect, for an unknown client or an unregistered redirect URI', async () => {
    for (const url of [
      authorizeUrl('svc_ocl_unknown'),
      authorizeUrl(clientId, { redirect_uri: 'https://evil.example/callback' }),
      authorizeUrl(clientId, { redirect_uri: `${REDIRECT}/more` }),
      authorizeUrl(clientId, { client_id: null }),
      authorizeUrl(clientId, { redirect_uri: null }),
    ]) {
      const r = await authorizeRedirect(url);
      expect(r.status).toBe(400);
      expect(r.location).toBeNull();
      expect(r.text).toContain('Cannot connect the app');
    }
  });

  it.each([
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['no PKCE method', { code_challenge_method: null }, 'invalid_request'],
    ['no PKCE at all', { code_challenge: null, code_challenge_method: null }, 'invalid_request'],
    ['a malformed challenge', { code_challenge: 'short' }, 'invalid_request'],
    ['the implicit flow', { response_type: 'token' }, 'unsupported_response_type'],
    ['a scope not in the list', { scope: 'inbox:read admin:all' }, 'invalid_scope'],
    ['a token for another resource', { resource: 'https://other.example/mcp' }, 'invalid_target'],
  ])('redirects back with an error for %s', async (_what, overrides, error) => {
    const r = await authorizeRedirect(authorizeUrl(clientId, overrides));
    expect(r.status).toBe(302);
    expect(`${r.location!.origin}${r.location!.pathname}`).toBe(REDIRECT);
    expect(r.location!.searchParams.get('error')).toBe(error);
    expect(r.location!.searchParams.get('state')).toBe('st-123');
    expect(r.location!.searchParams.get('iss')).toBe(t.baseUrl);
    expect(r.location!.searchParams.has('code')).toBe(false);
  });

  it('refuses a repeated parameter', async () => {
    const r = await authorizeRedirect(`${authorizeUrl(clientId)}&scope=keys:write`);
    expect(r.location!.searchParams.get('error')).toBe('invalid_request');
  });

  it('keeps a client within the scope it registered', async () => {
    const narrow = await newClient({ scope: 'inbox:read' });
    const r = await authorizeRedirect(authorizeUrl(narrow, { scope: 'inbox:read keys:write' }));
    expect(r.location!.searchParams.get('error')).toBe('invalid_scope');
    const page = await openConsent(authorizeUrl(narrow, { scope: null }));
    expect(page.scopes).toEqual(['inbox:read']);
  });

  it('matches a loopback redirect on any port, and nothing else loosely', async () => {
    const made = await register({ client_name: 'Native', redirect_uris: ['http://127.0.0.1:4000/cb'] });
    const native = made.body.client_id as string;
    const otherPort = await openConsent(authorizeUrl(native, { redirect_uri: 'http://127.0.0.1:59999/cb' }));
    expect(otherPort.status).toBe(200);
    expect(otherPort.headers.get('content-security-policy')).toContain('form-action \'self\' http://127.0.0.1:59999');
    expect((await authorizeRedirect(authorizeUrl(native, { redirect_uri: 'http://127.0.0.1:59999/other' }))).status).toBe(400);
    expect(matchRedirectUri(['https://a.example/cb'], 'https://a.example:444/cb')).toBeNull();
    expect(matchRedirectUri(['https://a.example/cb'], 'https://a.example/cb?x=1')).toBeNull();
    expect(matchRedirectUri(['http://localhost:1/cb'], 'http://localhost:2/cb')).toBe('http://localhost:2/cb');
  });
});

describe('the consent page', () => {
  it('escapes every string the client supplied and cannot be framed', async () => {
    const hostile = '<script>alert(1)</script>"\'><img src=x onerror=alert(2)>';
    const clientId = (await register({ client_name: hostile.slice(0, 100), redirect_uris: [REDIRECT], client_uri: 'https://x.example/"><script>alert(3)</script>' })).body
      .client_id as string;
    const page = await openConsent(authorizeUrl(clientId, { state: '"><script>alert(4)</script>' }));
    expect(page.status).toBe(200);
    expect(page.html).not.toMatch(/<script/i);
    expect(page.html).not.toMatch(/<img/i);
    expect(page.html).toContain('&#60;script&#62;alert(1)&#60;&#47;script&#62;');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self' https://app.example");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.html).toContain('app.example');
    expect(page.html).toContain('Act on your inbox');
    expect(page.html).not.toMatch(/https?:\/\/(?!app\.example|x\.example)[^"\s]*\.(css|js)/);
  });

  it('denied: back to the app with access_denied and the state; the page is then closed', async () => {
    const clientId = await newClient();
    const page = await openConsent(authorizeUrl(clientId));
    const denied = await answerConsent(t.baseUrl, page, { decision: 'deny' });
    expect(denied.status).toBe(303);
    expect(denied.location!.searchParams.get('error')).toBe('access_denied');
    expect(denied.location!.searchParams.get('state')).toBe('st-123');
    expect(denied.location!.searchParams.has('code')).toBe(false);
    const again = await answerConsent(t.baseUrl, page, { decision: 'approve', ownerKey: t.ownerKey });
    expect(again.status).toBe(400);
    expect(again.location).toBeNull();
  });

  it('refuses a wrong owner key and an integration key, then takes the owner key', async () => {
    const clientId = await newClient();
    const page = await openConsent(authorizeUrl(clientId));
    const wrong = await answerConsent(t.baseUrl, page, { decision: 'approve', ownerKey: 'svc_own_wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.location).toBeNull();
    expect(wrong.html).toContain('not a valid owner key');
    const integration = await t.owner('POST', '/v1/owner/api-keys', { body: { name: 'sync', preset: 'automation' } });
    expect(integration.status).toBe(201);
    const notOwner = await answerConsent(t.baseUrl, page, { decision: 'approve', ownerKey: integration.body.key });
    expect(notOwner.status).toBe(401);
    const none = await answerConsent(t.baseUrl, page, { decision: 'approve' });
    expect(none.status).toBe(401);
    const right = await answerConsent(t.baseUrl, page, { decision: 'approve', ownerKey: t.ownerKey });
    expect(right.status).toBe(303);
    expect(right.location!.searchParams.get('code')).toMatch(/^svc_oac_/);
  });

  it('closes after five wrong keys', async () => {
    const clientId = await newClient();
    const page = await openConsent(authorizeUrl(clientId));
    for (let i = 0; i < 4; i += 1) expect((await answerConsent(t.baseUrl, page, { decision: 'approve', ownerKey: `svc_own_guess${i}` })).status).toBe(401);
    const fifth = await answerConsent(t.baseUrl, page, { decision: 'approve', ownerKey: 'svc_own_guess5' });
    expect(fifth.html).toContain('Too many wrong keys');
    const after = await answerConsent(t.baseUrl, page, { decision: 'approve', ownerKey: t.ownerKey });
    expect(after.status).toBe(400);
    expect(after.location).toBeNull();
  });

  it('refuses a form without the page\'s CSRF token', async () => {
    const clientId = await newClient();
    const page = await openConsent(authorizeUrl(clientId));
    const forged = await answerConsent(t.baseUrl, { ...page, csrfToken: 'x'.repeat(43) }, { decision: 'approve', ownerKey: t.ownerKey });
    expect(forged.status).toBe(403);
    expect(forged.location).toBeNull();
    const missing = await answerConsent(t.baseUrl, { ...page, csrfToken: '' }, { decision: 'approve', ownerKey: t.ownerKey });
    expect(missing.status).toBe(400);
    const right = await answerConsent(t.baseUrl, page, { decision: 'approve', ownerKey: t.ownerKey });
    expect(right.status).toBe(303);
  });

  it('grants what stays ticked, never more than asked', async () => {
    const clientId = await newClient();
    const page = await openConsent(authorizeUrl(clientId));
    expect((await answerConsent(t.baseUrl, page, { decision: 'approve', ownerKey: t.ownerKey, scopes: [] })).status).toBe(400);
    expect((await answerConsent(t.baseUrl, page, { decision: 'approve', ownerKey: t.ownerKey, scopes: ['inbox:read', 'keys:write'] })).status).toBe(400);
    const answer = await answerConsent(t.baseUrl, page, { decision: 'approve', ownerKey: t.ownerKey, scopes: ['inbox:read'] });
    expect(answer.status).toBe(303);
  });

  it('expires after ten minutes', async () => {
    const clientId = await newClient();
    const page = await openConsent(authorizeUrl(clientId));
    t.clock.advance(10 * 60_000 + 1);
    const late = await answerConsent(t.baseUrl, page, { decision: 'approve', ownerKey: t.ownerKey });
    expect(late.status).toBe(400);
    expect(late.html).toContain('expired');
  });
});

describe('the token endpoint', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = await newClient();
  });

  it('refuses a wrong verifier, a missing one, a wrong redirect URI and another resource; the right request still works', async () => {
    const { code, verifier } = await approvedCode(clientId);
    const wrongVerifier = await exchange(clientId, code, pkcePair().verifier);
    expect(wrongVerifier).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(wrongVerifier.headers.get('cache-control')).toBe('no-store');
    const noVerifier = await postForm(t.baseUrl, '/oauth/token', { grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT });
    expect(noVerifier).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await exchange(clientId, code, verifier, { redirect_uri: 'https://app.example/other' })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await exchange(clientId, code, verifier, { resource: 'https://other.example/mcp' })).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    const ok = await exchange(clientId, code, verifier, { resource });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'inbox:read inbox:write' });
  });

  it('refuses an unknown client, and a code issued to another client', async () => {
    const { code, verifier } = await approvedCode(clientId);
    const unknown = await exchange('svc_ocl_nobody', code, verifier);
    expect(unknown).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const noClient = await postForm(t.baseUrl, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT });
    expect(noClient).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const other = await newClient();
    expect(await exchange(other, code, verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await exchange(clientId, code, verifier)).status).toBe(200);
  });

  it('takes a code once: a second exchange is refused and revokes what the first gave', async () => {
    const { code, verifier } = await approvedCode(clientId);
    const first = await exchange(clientId, code, verifier);
    expect(first.status).toBe(200);
    expect(await ownerItemsWith(first.body.access_token)).toBe(200);
    expect(await exchange(clientId, code, verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await ownerItemsWith(first.body.access_token)).toBe(401);
  });

  it('refuses a code after five minutes', async () => {
    const { code, verifier } = await approvedCode(clientId);
    t.clock.advance(5 * 60_000 + 1);
    expect(await exchange(clientId, code, verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses other grant types, other media types and client secrets', async () => {
    expect(await postForm(t.baseUrl, '/oauth/token', { grant_type: 'password', client_id: clientId, username: 'a', password: 'b' })).toMatchObject({
      status: 400,
      body: { error: 'unsupported_grant_type' },
    });
    expect(await postForm(t.baseUrl, '/oauth/token', { grant_type: 'client_credentials', client_id: clientId })).toMatchObject({ body: { error: 'unsupported_grant_type' } });
    expect(await postForm(t.baseUrl, '/oauth/token', { client_id: clientId })).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    const json = await fetch(`${t.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'authorization_code', client_id: clientId }),
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as { error: string }).error).toBe('invalid_request');
    const secret = await postForm(t.baseUrl, '/oauth/token', { grant_type: 'authorization_code', code: 'x' }, { authorization: `Basic ${Buffer.from(`${clientId}:s3cret`).toString('base64')}` });
    expect(secret).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('accepts the client named as the user of HTTP Basic with no password', async () => {
    const { code, verifier } = await approvedCode(clientId);
    const answer = await postForm(
      t.baseUrl,
      '/oauth/token',
      { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT },
      { authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:`).toString('base64')}` },
    );
    expect(answer.status).toBe(200);
  });
});

describe('tokens in use: expiry, refresh rotation, revocation', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = await newClient();
  });

  function refresh(refreshToken: string, extra: Record<string, string> = {}, client = clientId) {
    return postForm(t.baseUrl, '/oauth/token', { grant_type: 'refresh_token', client_id: client, refresh_token: refreshToken, ...extra });
  }

  it('refuses an access token after its hour', async () => {
    const tokens = await tokensFor(clientId);
    expect(await ownerItemsWith(tokens.access_token)).toBe(200);
    t.clock.advance(3600_000);
    expect(await ownerItemsWith(tokens.access_token)).toBe(401);
    const renewed = await refresh(tokens.refresh_token);
    expect(renewed.status).toBe(200);
    expect(await ownerItemsWith(renewed.body.access_token)).toBe(200);
  });

  it('revokes the grant when a rotated refresh token comes back', async () => {
    const tokens = await tokensFor(clientId);
    const rotated = await refresh(tokens.refresh_token);
    expect(rotated.status).toBe(200);
    const reused = await refresh(tokens.refresh_token);
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await ownerItemsWith(rotated.body.access_token)).toBe(401);
    expect(await refresh(rotated.body.refresh_token)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const apps = await t.owner('GET', '/v1/owner/ai-apps?include_revoked=true&limit=100');
    expect(apps.body.items.some((app: { revoked_reason: string }) => app.revoked_reason === 'refresh_reuse')).toBe(true);
  });

  it('narrows scope on refresh, and refuses more than granted, another client and another resource', async () => {
    const tokens = await tokensFor(clientId);
    expect(await refresh(tokens.refresh_token, { scope: 'inbox:read keys:write' })).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    expect(await refresh(tokens.refresh_token, { resource: 'https://other.example/mcp' })).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    const other = await newClient();
    expect(await refresh(tokens.refresh_token, {}, other)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const narrowed = await refresh(tokens.refresh_token, { scope: 'inbox:read' });
    expect(narrowed).toMatchObject({ status: 200, body: { scope: 'inbox:read' } });
    // The next refresh token keeps the grant's scopes.
    expect(await refresh(narrowed.body.refresh_token)).toMatchObject({ status: 200, body: { scope: 'inbox:read inbox:write' } });
  });

  it('revokes by access or refresh token (RFC 7009); afterwards both are refused', async () => {
    const tokens = await tokensFor(clientId);
    const revoked = await postForm(t.baseUrl, '/oauth/revoke', { token: tokens.access_token, token_type_hint: 'access_token', client_id: clientId });
    expect(revoked.status).toBe(200);
    expect(await ownerItemsWith(tokens.access_token)).toBe(401);
    expect(await refresh(tokens.refresh_token)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await postForm(t.baseUrl, '/oauth/revoke', { token: 'svc_oat_unknown', client_id: clientId })).status).toBe(200);
    expect((await postForm(t.baseUrl, '/oauth/revoke', { client_id: clientId })).body.error).toBe('invalid_request');
  });

  it('refuses revocation by another client and leaves the token working', async () => {
    const tokens = await tokensFor(clientId);
    const other = await newClient();
    const refused = await postForm(t.baseUrl, '/oauth/revoke', { token: tokens.refresh_token, client_id: other });
    expect(refused).toMatchObject({ status: 400, body: { error: 'unauthorized_client' } });
    expect(await ownerItemsWith(tokens.access_token)).toBe(200);
  });

  it('a new consent replaces the app\'s earlier one', async () => {
    const app = await newClient({ client_name: 'Re-approved app' });
    const first = await tokensFor(app);
    const second = await tokensFor(app);
    expect(await ownerItemsWith(first.access_token)).toBe(401);
    expect(await ownerItemsWith(second.access_token)).toBe(200);
    const apps = await t.owner('GET', '/v1/owner/ai-apps');
    expect(apps.body.items.filter((a: { name: string }) => a.name === 'Re-approved app')).toHaveLength(1);
  });
});

describe('AI apps as owner operations', () => {
  it('refuses calls outside the granted scopes, even with security.enforceScopes off, and records them under the app', async () => {
    const clientId = await newClient({ client_name: 'Reader' });
    const tokens = await tokensFor(clientId, { scope: 'inbox:read' });
    const settings = await t.request('GET', '/v1/owner/settings', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(settings.status).toBe(403);
    expect(settings.body).toMatchObject({ code: 'not_allowed', scope: 'settings:read' });
    expect(await ownerItemsWith(tokens.access_token)).toBe(200);
    const apps = await t.owner('GET', '/v1/owner/ai-apps');
    const reader = apps.body.items.find((a: { name: string }) => a.name === 'Reader');
    expect(reader.scopes).toEqual(['inbox:read']);
    expect(reader.calls_outside_scopes).toEqual([expect.objectContaining({ operation: 'get_settings', scope: 'settings:read', calls: 1, refused: 1 })]);
  });

  it('lets an app disconnect itself but not another app; unknown ids are 404', async () => {
    const one = await tokensFor(await newClient({ client_name: 'One' }), { scope: 'keys:write inbox:read' });
    const two = await tokensFor(await newClient({ client_name: 'Two' }), { scope: 'keys:write inbox:read' });
    const apps = await t.owner('GET', '/v1/owner/ai-apps');
    const idOf = (name: string) => apps.body.items.find((a: { name: string }) => a.name === name).id as string;
    const asOne = { authorization: `Bearer ${one.access_token}` };
    const cross = await t.request('DELETE', `/v1/owner/ai-apps/${idOf('Two')}`, { headers: asOne });
    expect(cross.status).toBe(403);
    expect(cross.body.code).toBe('not_allowed');
    expect(await ownerItemsWith(two.access_token)).toBe(200);
    const self = await t.request('DELETE', `/v1/owner/ai-apps/${idOf('One')}`, { headers: asOne });
    expect(self.status).toBe(200);
    expect(await ownerItemsWith(one.access_token)).toBe(401);
    expect((await t.owner('DELETE', '/v1/owner/ai-apps/01JAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    const again = await t.owner('DELETE', `/v1/owner/ai-apps/${idOf('One')}`);
    expect(again).toMatchObject({ status: 200, body: { active: false, revoked_reason: 'owner' } });
  });

  it('pages the list and hides revoked apps unless asked', async () => {
    const all = await t.owner('GET', '/v1/owner/ai-apps?include_revoked=true&limit=2');
    expect(all.body.items).toHaveLength(2);
    expect(all.body.next_cursor).toEqual(expect.any(String));
    const next = await t.owner('GET', `/v1/owner/ai-apps?include_revoked=true&limit=2&cursor=${encodeURIComponent(all.body.next_cursor)}`);
    expect(next.body.items[0].id < all.body.items[1].id).toBe(true);
    const active = await t.owner('GET', '/v1/owner/ai-apps?limit=100');
    expect(active.body.items.every((a: { active: boolean }) => a.active)).toBe(true);
    expect((await t.owner('GET', '/v1/owner/ai-apps?cursor=nonsense')).status).toBe(422);
  });
});

describe('a token for another resource', () => {
  it('stops working when the public URL changes', async () => {
    const tokens = await tokensFor(await newClient());
    expect(await ownerItemsWith(tokens.access_token)).toBe(200);
    const { dataDir, ownerKey, clock } = t;
    await t.close({ removeData: false });
    // Another port is another public URL: grants for the old resource are revoked at start.
    t = await startOAuthInbox({ dataDir, ownerKey, clock });
    resource = `${t.baseUrl}/mcp/owner`;
    expect(await ownerItemsWith(tokens.access_token)).toBe(401);
    expect(await ownerItemsWith(ownerKey)).toBe(200);
  });
});

describe('upkeep', () => {
  it('forgets registrations that never reached a consent page, and expired codes, but keeps connected apps', async () => {
    const idle = await newClient({ client_name: 'Never used' });
    const connected = await newClient({ client_name: 'Connected' });
    const tokens = await tokensFor(connected);
    const { code, verifier } = await approvedCode(connected);
    t.clock.advance(8 * 86_400_000);
    await pruneOAuth(t.inbox.store, t.clock.now());
    expect((await authorizeRedirect(authorizeUrl(idle))).status).toBe(400);
    expect((await openConsent(authorizeUrl(connected))).status).toBe(200);
    expect(await exchange(connected, code, verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const renewed = await postForm(t.baseUrl, '/oauth/token', { grant_type: 'refresh_token', client_id: connected, refresh_token: tokens.refresh_token });
    expect(renewed.status).toBe(200);
  });
});
