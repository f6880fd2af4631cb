/**
 * Dynamic client registration (RFC 7591) for AI apps. Anyone may register, so what is kept is
 * bounded; every client is public (token_endpoint_auth_method `none`) and proves itself with PKCE.
 * A client asking for a secret-based method is registered as `none` instead, which RFC 7591 §3.2.1
 * allows and the answer states. No registration access token: a client is never changed, only
 * registered again.
 */
import { randomToken, unsafeCharacterIn } from '@svc/shared';
import type { OAuthClientRecord, OAuthStore } from '../../../store/oauth-store.js';
import { OAuthError } from './oauth-error.js';
import { CLIENT_ID_PREFIX, MAX_CLIENT_NAME_LENGTH, MAX_CLIENT_URI_LENGTH, MAX_REDIRECT_URIS } from './oauth-limits.js';
import { redirectUriProblem } from './redirect-uris.js';
import { formatScope, parseScope } from './scopes.js';

const GRANT_TYPES = ['authorization_code', 'refresh_token'];
const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'];

function metadataError(message: string): OAuthError {
  return new OAuthError('invalid_client_metadata', message);
}

function stringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) throw metadataError(`${field} must be an array of strings.`);
  for (const entry of value) refuseUnsafe(entry, field);
  return value;
}

function optionalString(value: unknown, field: string, maxLength: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw metadataError(`${field} must be a string.`);
  if (value.length > maxLength) throw metadataError(`${field} must be at most ${maxLength} characters.`);
  refuseUnsafe(value, field);
  return value;
}

/** What a client sends is shown to the owner on the consent page: no control or text-direction characters (issue 19). */
function refuseUnsafe(value: string, field: string): void {
  const found = unsafeCharacterIn(value, false);
  if (found !== null) throw metadataError(`${field} holds ${found}, a control or text-direction character; send plain text.`);
}

/** Checks the metadata a client sent and keeps what this server uses. */
export function validateClientMetadata(body: unknown): Omit<OAuthClientRecord, 'id' | 'createdAt'> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw metadataError('The body must be a JSON object of client metadata.');
  const metadata = body as Record<string, unknown>;

  const redirectUris = stringList(metadata.redirect_uris, 'redirect_uris');
  if (!redirectUris || redirectUris.length === 0) throw new OAuthError('invalid_redirect_uri', 'redirect_uris must name at least one redirect URI.');
  if (redirectUris.length > MAX_REDIRECT_URIS) throw new OAuthError('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect URIs.`);
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `The redirect URI ${uri.slice(0, 200)} ${problem}.`);
  }

  const name = optionalString(metadata.client_name, 'client_name', MAX_CLIENT_NAME_LENGTH)?.trim() || null;
  const clientUri = optionalString(metadata.client_uri, 'client_uri', MAX_CLIENT_URI_LENGTH);
  if (clientUri !== null && !/^https?:\/\//i.test(clientUri)) throw metadataError('client_uri must be an http(s) URL.');

  const method = metadata.token_endpoint_auth_method;
  if (method !== undefined && (typeof method !== 'string' || !AUTH_METHODS.includes(method))) {
    throw metadataError('token_endpoint_auth_method must be none; this server registers public clients that use PKCE.');
  }

  const grantTypes = stringList(metadata.grant_types, 'grant_types') ?? ['authorization_code', 'refresh_token'];
  const unknownGrant = grantTypes.find((g) => !GRANT_TYPES.includes(g));
  if (unknownGrant !== undefined) throw metadataError(`grant_types may hold authorization_code and refresh_token, not ${unknownGrant.slice(0, 60)}.`);
  if (!grantTypes.includes('authorization_code')) throw metadataError('grant_types must include authorization_code.');

  const responseTypes = stringList(metadata.response_types, 'response_types') ?? ['code'];
  if (responseTypes.length === 0 || responseTypes.some((r) => r !== 'code')) throw metadataError('response_types may only be ["code"].');

  let scope: string | null = null;
  if (metadata.scope !== undefined) {
    if (typeof metadata.scope !== 'string') throw metadataError('scope must be a space-separated string.');
    try {
      scope = formatScope(parseScope(metadata.scope)) || null;
    } catch (error) {
      if (error instanceof OAuthError) throw metadataError(error.message);
      throw error;
    }
  }

  return {
    name,
    redirectUris: [...new Set(redirectUris)],
    grantTypes: [...new Set(grantTypes)],
    responseTypes: ['code'],
    scope,
    clientUri,
  };
}

/** The registration answer (RFC 7591 §3.2.1): the client id and what was registered. */
export function registrationAnswer(client: OAuthClientRecord) {
  return {
    client_id: client.id,
    client_id_issued_at: Math.floor(client.createdAt / 1000),
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: 'none',
    grant_types: client.grantTypes,
    response_types: client.responseTypes,
    ...(client.name !== null ? { client_name: client.name } : {}),
    ...(client.scope !== null ? { scope: client.scope } : {}),
    ...(client.clientUri !== null ? { client_uri: client.clientUri } : {}),
  };
}

export async function registerClient(store: OAuthStore, body: unknown, nowMs: number): Promise<OAuthClientRecord> {
  const client: OAuthClientRecord = { id: `${CLIENT_ID_PREFIX}${randomToken(16)}`, createdAt: nowMs, ...validateClientMetadata(body) };
  await store.insertClient(client);
  return client;
}
