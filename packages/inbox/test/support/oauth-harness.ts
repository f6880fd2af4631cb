/**
 * OAuth tests need the inbox's public URL to be the address it listens on (discovery follows the
 * metadata's URLs), so this starts an inbox on a port chosen first. Also: an in-memory OAuth client
 * provider for the MCP SDK, and a "browser" that reads the consent page and answers it as the owner.
 */
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { jsonClient, type ApiResponse } from '../../../../test-support/http-client.js';
import { dropTestDatabase, testDatabaseUrl } from '../../../../test-support/test-database.js';
import { buildInbox, type Inbox } from '../../src/app.js';
import { createOwnerKey } from '../../src/domain/access/api-keys.js';
import { seedDemoBusiness } from '../../src/demo/seed-demo.js';
import { TestClock } from './harness.js';

export interface OAuthInbox {
  inbox: Inbox;
  baseUrl: string;
  port: number;
  dataDir: string;
  ownerKey: string;
  clock: TestClock;
  request<T = any>(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string>; rawBody?: string }): Promise<ApiResponse<T>>;
  owner<T = any>(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  close(options?: { removeData?: boolean }): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startOAuthInbox(options: { clock?: TestClock; dataDir?: string; port?: number; ownerKey?: string } = {}): Promise<OAuthInbox> {
  const clock = options.clock ?? new TestClock();
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'inbox-oauth-'));
  const port = options.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const inbox = await buildInbox({ dataDir, databaseUrl: await testDatabaseUrl('inbox', dataDir), publicBaseUrl: baseUrl, clock, logLevel: 'silent', runJobs: false });
  if (options.ownerKey === undefined) await seedDemoBusiness({ store: inbox.store, clock });
  const ownerKey = options.ownerKey ?? (await createOwnerKey(inbox.store, 'test owner', clock.now())).value;
  await inbox.http.listen({ host: '127.0.0.1', port });
  const request = jsonClient(baseUrl);
  return {
    inbox,
    baseUrl,
    port,
    dataDir,
    ownerKey,
    clock,
    request,
    owner: (method, path, opts = {}) => request(method, path, { ...opts, headers: { authorization: `Bearer ${ownerKey}`, ...(opts.headers ?? {}) } }),
    async close(closeOptions = {}) {
      await inbox.close();
      if (closeOptions.removeData ?? true) {
        rmSync(dataDir, { recursive: true, force: true });
        await dropTestDatabase('inbox', dataDir);
      }
    },
  };
}

/** What an MCP client app keeps between runs, in memory; it records where the SDK sends the browser. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly #metadata: OAuthClientMetadata;
  readonly #redirect: string;

  constructor(redirectUrl: string, metadata: Partial<OAuthClientMetadata> = {}) {
    this.#redirect = redirectUrl;
    this.#metadata = {
      client_name: 'Test AI app',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...metadata,
    };
  }

  get redirectUrl(): string {
    return this.#redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return this.#metadata;
  }
  state(): string {
    return 'state-' + randomBytes(6).toString('hex');
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

export interface ConsentForm {
  status: number;
  html: string;
  headers: Headers;
  requestId: string;
  csrfToken: string;
  scopes: string[];
}

function hidden(html: string, name: string): string {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
}

/** Opens the consent page as a browser would. */
export async function openConsent(url: string | URL): Promise<ConsentForm> {
  const response = await fetch(url, { redirect: 'manual' });
  const html = await response.text();
  const scopes = [...html.matchAll(/name="scope" value="([^"]*)" checked/g)].map((m) => m[1] ?? '');
  return { status: response.status, html, headers: response.headers, requestId: hidden(html, 'request_id'), csrfToken: hidden(html, 'csrf_token'), scopes };
}

/** Posts the consent form (as the owner) and answers the status and where it redirects. */
export async function answerConsent(
  baseUrl: string,
  form: { requestId: string; csrfToken: string; scopes: readonly string[] },
  answer: { decision: 'approve' | 'deny' | string; ownerKey?: string; scopes?: readonly string[] },
): Promise<{ status: number; location: URL | null; html: string }> {
  const body = new URLSearchParams({ request_id: form.requestId, csrf_token: form.csrfToken, decision: answer.decision });
  if (answer.ownerKey !== undefined) body.set('owner_key', answer.ownerKey);
  for (const scope of answer.scopes ?? form.scopes) body.append('scope', scope);
  const response = await fetch(`${baseUrl}/oauth/authorize`, { method: 'POST', body, redirect: 'manual' });
  const location = response.headers.get('location');
  return { status: response.status, location: location ? new URL(location) : null, html: await response.text() };
}

/** A PKCE pair made independently of the server's code. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A form POST to an OAuth endpoint; the JSON answer parsed. */
export async function postForm(baseUrl: string, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl}${path}`, { method: 'POST', body: new URLSearchParams(fields), headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}
