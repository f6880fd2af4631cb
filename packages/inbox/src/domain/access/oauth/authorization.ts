/**
 * The authorization endpoint (RFC 6749 §4.1, OAuth 2.1): checks a client's request, holds it while
 * the owner reads the consent page, and turns the owner's answer into a redirect with a code or
 * `access_denied`. The owner proves who they are by pasting an owner key (kind `owner`): this
 * project has no owner app or session (docs/oauth.md). Rendering is the door's job.
 */
import { newId, randomToken, safeEqualHex, sha256Hex } from '@svc/shared';
import type { OAuthClientRecord, OAuthRequestRecord } from '../../../store/oauth-store.js';
import type { InboxStore } from '../../../store/store.js';
import { ALL_SCOPES } from '../api-keys.js';
import { checkResource, optionalParam, requiredParam, type OAuthParams } from './form-params.js';
import { OAuthError } from './oauth-error.js';
import { CODE_LIFE_MS, CODE_PREFIX, CONSENT_LIFE_MS, CONSENT_MAX_FAILED_ATTEMPTS, MAX_STATE_LENGTH } from './oauth-limits.js';
import type { OAuthEndpoints } from './oauth-metadata.js';
import { CODE_CHALLENGE_PATTERN } from './pkce.js';
import { matchRedirectUri } from './redirect-uris.js';
import { parseScope, type Scope } from './scopes.js';

/** What the consent page shows and posts back. */
export interface ConsentView {
  requestId: string;
  csrfToken: string;
  client: OAuthClientRecord;
  redirectUri: string;
  scopes: string[];
  /** A message above the form after a refused attempt. */
  notice?: string | undefined;
}

export type AuthorizationOutcome =
  /** The request cannot be trusted to redirect (unknown client or redirect URI): tell the person on the page. */
  | { kind: 'page_error'; status: number; message: string }
  /** Back to the client, with a code or an error (RFC 6749 §4.1.2, §4.1.2.1; `iss` per RFC 9207). */
  | { kind: 'redirect'; location: string }
  | { kind: 'consent'; status: number; view: ConsentView };

export function redirectWith(redirectUri: string, issuer: string, values: Record<string, string | null | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(values)) if (value !== null && value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set('iss', issuer);
  return url.href;
}

function errorRedirect(redirectUri: string, issuer: string, error: OAuthError, state: string | null): AuthorizationOutcome {
  return { kind: 'redirect', location: redirectWith(redirectUri, issuer, { error: error.code, error_description: error.message, state }) };
}

/** Checks client and redirect URI first: only then may a refusal be sent to the redirect URI. */
async function resolveClientAndRedirect(
  store: InboxStore,
  params: OAuthParams,
): Promise<{ client: OAuthClientRecord; redirectUri: string } | { error: string }> {
  let clientId: string;
  let requested: string | undefined;
  try {
    clientId = requiredParam(params, 'client_id');
    requested = optionalParam(params, 'redirect_uri');
  } catch (error) {
    if (error instanceof OAuthError) return { error: error.message };
    throw error;
  }
  const client = await store.oauth.getClient(clientId);
  if (!client) return { error: 'This app is not registered here (unknown client_id). Connect it again from the app.' };
  // Always required, so the token request can always be held to the same value (OAuth 2.1 §4.1.3).
  if (requested === undefined) return { error: 'The app did not say where to return (redirect_uri is missing).' };
  const redirectUri = matchRedirectUri(client.redirectUris, requested);
  if (redirectUri === null) return { error: 'The app asked to return to an address it did not register (redirect_uri does not match).' };
  return { client, redirectUri };
}

/** GET /oauth/authorize: a checked request becomes a pending consent; anything else is refused. */
export async function startAuthorization(store: InboxStore, endpoints: OAuthEndpoints, params: OAuthParams, nowMs: number): Promise<AuthorizationOutcome> {
  const resolved = await resolveClientAndRedirect(store, params);
  if ('error' in resolved) return { kind: 'page_error', status: 400, message: resolved.error };
  const { client, redirectUri } = resolved;

  const rawState = params.state?.length === 1 ? (params.state[0] ?? null) : null;
  const state = rawState !== null && rawState.length <= MAX_STATE_LENGTH ? rawState : null;
  try {
    if ((params.state?.length ?? 0) > 1) throw new OAuthError('invalid_request', 'The parameter state was sent more than once.');
    if (rawState !== null && rawState.length > MAX_STATE_LENGTH) throw new OAuthError('invalid_request', `state must be at most ${MAX_STATE_LENGTH} characters.`);
    const responseType = requiredParam(params, 'response_type');
    if (responseType !== 'code') throw new OAuthError('unsupported_response_type', 'Only response_type=code is offered.');
    const challenge = optionalParam(params, 'code_challenge');
    const method = optionalParam(params, 'code_challenge_method');
    if (challenge === undefined) throw new OAuthError('invalid_request', 'PKCE is required: send code_challenge and code_challenge_method=S256.');
    if (method !== 'S256') throw new OAuthError('invalid_request', 'Only code_challenge_method=S256 is accepted (plain is refused).');
    if (!CODE_CHALLENGE_PATTERN.test(challenge)) throw new OAuthError('invalid_request', 'code_challenge must be the 43-character base64url S256 of the verifier.');
    const scopes = requestedScopes(client, optionalParam(params, 'scope'));
    checkResource(params, endpoints.resource);

    const csrfToken = randomToken(32);
    const request: OAuthRequestRecord = {
      id: newId(nowMs),
      csrfHash: sha256Hex(csrfToken),
      clientId: client.id,
      redirectUri,
      scopes,
      state,
      codeChallenge: challenge,
      resource: endpoints.resource,
      createdAt: nowMs,
      expiresAt: nowMs + CONSENT_LIFE_MS,
      failedAttempts: 0,
      closedAt: null,
    };
    await store.oauth.insertRequest(request);
    return { kind: 'consent', status: 200, view: { requestId: request.id, csrfToken, client, redirectUri, scopes } };
  } catch (error) {
    if (error instanceof OAuthError) return errorRedirect(redirectUri, endpoints.issuer, error, state);
    throw error;
  }
}

/** The scopes asked for: named ones, within what the client registered; none named means what it registered, or all. */
function requestedScopes(client: OAuthClientRecord, scope: string | undefined): Scope[] {
  const registered = client.scope === null ? null : parseScope(client.scope);
  if (scope === undefined) return registered ?? [...ALL_SCOPES];
  const asked = parseScope(scope);
  if (asked.length === 0) throw new OAuthError('invalid_scope', 'scope names no scope.');
  const beyond = registered === null ? [] : asked.filter((s) => !registered.includes(s));
  if (beyond.length > 0) throw new OAuthError('invalid_scope', `The app registered without ${beyond.join(', ')}.`);
  return asked;
}

export interface ConsentAnswer {
  requestId: string | undefined;
  csrfToken: string | undefined;
  decision: string | undefined;
  ownerKey: string | undefined;
  /** The scopes left ticked on the page. */
  scopes: readonly string[];
}

const PAGE_GONE = 'This consent page has expired or was already answered. Start again from the app.';

/** POST /oauth/authorize: the owner approves (with an owner key) or denies. */
export async function answerConsent(store: InboxStore, endpoints: OAuthEndpoints, answer: ConsentAnswer, nowMs: number): Promise<AuthorizationOutcome> {
  if (!answer.requestId || !answer.csrfToken) return { kind: 'page_error', status: 400, message: 'The form is incomplete. Start again from the app.' };
  const request = await store.oauth.getRequest(answer.requestId);
  if (!request || request.closedAt !== null || request.expiresAt <= nowMs) return { kind: 'page_error', status: 400, message: PAGE_GONE };
  // The token is only in the page this server rendered for this request: a form posted from elsewhere lacks it.
  if (!safeEqualHex(sha256Hex(answer.csrfToken), request.csrfHash)) {
    return { kind: 'page_error', status: 403, message: 'This form did not come from the consent page. Start again from the app.' };
  }
  const client = await store.oauth.getClient(request.clientId);
  if (!client) return { kind: 'page_error', status: 400, message: PAGE_GONE };
  const view: ConsentView = { requestId: request.id, csrfToken: answer.csrfToken, client, redirectUri: request.redirectUri, scopes: request.scopes };

  if (answer.decision === 'deny') {
    if (!(await store.oauth.closeRequest(request.id, nowMs))) return { kind: 'page_error', status: 400, message: PAGE_GONE };
    return errorRedirect(request.redirectUri, endpoints.issuer, new OAuthError('access_denied', 'The owner did not allow access.'), request.state);
  }
  if (answer.decision !== 'approve') return { kind: 'consent', status: 400, view: { ...view, notice: 'Choose Allow or Deny.' } };

  const ownerKeyId = await ownerKeyIdOf(store, answer.ownerKey, nowMs);
  if (ownerKeyId === null) {
    const attempts = await store.oauth.recordFailedAttempt(request.id);
    if (attempts >= CONSENT_MAX_FAILED_ATTEMPTS) {
      await store.oauth.closeRequest(request.id, nowMs);
      return { kind: 'page_error', status: 401, message: 'Too many wrong keys. This consent page is closed; start again from the app.' };
    }
    return { kind: 'consent', status: 401, view: { ...view, notice: 'That is not a valid owner key. Paste the owner key (svc_own_…) printed when the inbox was set up.' } };
  }

  const unknownTick = answer.scopes.find((s) => !request.scopes.includes(s));
  if (unknownTick !== undefined) return { kind: 'page_error', status: 400, message: 'The form named a permission the app did not ask for. Start again from the app.' };
  const granted = request.scopes.filter((s) => answer.scopes.includes(s));
  if (granted.length === 0) return { kind: 'consent', status: 400, view: { ...view, notice: 'Leave at least one permission ticked, or choose Deny.' } };

  if (!(await store.oauth.closeRequest(request.id, nowMs))) return { kind: 'page_error', status: 400, message: PAGE_GONE };
  const code = `${CODE_PREFIX}${randomToken(32)}`;
  await store.oauth.insertCode({
    codeHash: sha256Hex(code),
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    scopes: granted,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
    approvedByKeyId: ownerKeyId,
    createdAt: nowMs,
    expiresAt: nowMs + CODE_LIFE_MS,
    usedAt: null,
    grantId: null,
  });
  return { kind: 'redirect', location: redirectWith(request.redirectUri, endpoints.issuer, { code, state: request.state }) };
}

/** Only an owner key (not an integration key) may connect an AI app. */
async function ownerKeyIdOf(store: InboxStore, key: string | undefined, nowMs: number): Promise<string | null> {
  const value = key?.trim();
  if (!value || value.length > 200) return null;
  const record = await store.apiKeys.findByHash(sha256Hex(value));
  if (!record || record.kind !== 'owner' || record.revokedAt !== null || (record.expiresAt !== null && record.expiresAt <= nowMs)) return null;
  return record.id;
}
