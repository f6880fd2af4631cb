/**
 * The HTTP side of OAuth 2.1 for the owner's MCP (docs/oauth.md): metadata (RFC 9728, RFC 8414),
 * registration (RFC 7591), the consent page, token (RFC 6749 with PKCE) and revocation (RFC 7009).
 * OAuth endpoints answer RFC 6749 JSON errors, which OAuth client libraries read; the consent page
 * answers HTML. Rules live in domain/access/oauth; this file only translates HTTP.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toProblem, type HttpMethod } from '@svc/shared';
import { loadProfile } from '../../domain/context.js';
import { answerConsent, startAuthorization, type AuthorizationOutcome } from '../../domain/access/oauth/authorization.js';
import { registerClient, registrationAnswer } from '../../domain/access/oauth/client-registration.js';
import type { OAuthParams } from '../../domain/access/oauth/form-params.js';
import { OAuthError } from '../../domain/access/oauth/oauth-error.js';
import {
  AUTHORIZATION_PATH,
  AUTHORIZATION_SERVER_METADATA_PATH,
  REGISTRATION_PATH,
  RESOURCE_METADATA_PATH,
  REVOCATION_PATH,
  TOKEN_PATH,
  authorizationServerMetadata,
  oauthEndpoints,
  protectedResourceMetadata,
} from '../../domain/access/oauth/oauth-metadata.js';
import { RegistrationLimiter } from '../../domain/access/oauth/registration-limiter.js';
import { exchangeToken, revokeToken } from '../../domain/access/oauth/token-endpoint.js';
import type { Clock } from '../../domain/types.js';
import type { InboxStore } from '../../store/store.js';
import { renderConsentPage, renderErrorPage, type RenderedPage } from './consent-page.js';

/** OAuth forms are small; anything larger is not one. */
const FORM_LIMIT_BYTES = 64 * 1024;
/** Inbox spec §8: only the profile, manifest, services and products are cacheable; the metadata is not. */
const UNCACHEABLE = 'no-store';

/** The routes this file serves, for telling 405 from 404. */
export const OAUTH_ROUTES: readonly { method: HttpMethod; path: string }[] = [
  { method: 'GET', path: RESOURCE_METADATA_PATH },
  { method: 'GET', path: AUTHORIZATION_SERVER_METADATA_PATH },
  { method: 'POST', path: REGISTRATION_PATH },
  { method: 'GET', path: AUTHORIZATION_PATH },
  { method: 'POST', path: AUTHORIZATION_PATH },
  { method: 'POST', path: TOKEN_PATH },
  { method: 'POST', path: REVOCATION_PATH },
];

export interface OAuthRoutesOptions {
  store: InboxStore;
  clock: Clock;
  publicBaseUrl: string;
}

/** Fields of a form or query: every value of every name, on an object without a prototype. */
function paramsOf(search: URLSearchParams): OAuthParams {
  const params: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const [name, value] of search) (params[name] ??= []).push(value);
  return params;
}

function formOf(request: FastifyRequest): OAuthParams {
  if (!(request.body instanceof URLSearchParams)) {
    throw new OAuthError('invalid_request', 'Send the body as application/x-www-form-urlencoded.');
  }
  return paramsOf(request.body);
}

/** A public client may name itself as the user of HTTP Basic (RFC 6749 §2.3.1); it has no secret. */
function basicClientId(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match?.[1]) throw new OAuthError('invalid_client', 'Only HTTP Basic with the client_id, or client_id in the body, names a client here.');
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon === -1 ? decoded : decoded.slice(0, colon);
  const secret = colon === -1 ? '' : decoded.slice(colon + 1);
  if (secret !== '') throw new OAuthError('invalid_client', 'Clients here are public and have no secret; send client_id with no password.');
  try {
    return decodeURIComponent(user.replace(/\+/g, ' '));
  } catch {
    throw new OAuthError('invalid_client', 'The client_id in the Basic header is not form-encoded.');
  }
}

/** Browser-based MCP clients read metadata and call these endpoints from another origin; no cookies are involved. */
function allowAnyOrigin(reply: FastifyReply): void {
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-expose-headers', 'www-authenticate');
}

function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (error.code === 'invalid_client' && error.status === 401) reply.header('www-authenticate', 'Basic realm="oauth"');
  return reply.code(error.status).header('cache-control', 'no-store').header('pragma', 'no-cache').type('application/json; charset=utf-8').send(error.toJson());
}

function sendPage(reply: FastifyReply, status: number, rendered: RenderedPage): FastifyReply {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('content-security-policy', rendered.csp)
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .type('text/html; charset=utf-8')
    .send(rendered.html);
}

export async function oauthRoutes(app: FastifyInstance, options: OAuthRoutesOptions): Promise<void> {
  const { store, clock } = options;
  const endpoints = oauthEndpoints(options.publicBaseUrl);
  const limiter = new RegistrationLimiter();

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_request, body, done) => {
    done(null, new URLSearchParams(Buffer.isBuffer(body) ? body.toString('utf8') : body));
  });

  // What fails before a handler (bad JSON, a body too large, another media type) is still an OAuth error here.
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof OAuthError) return sendOAuthError(reply, error);
    const problem = toProblem(error);
    if (problem.status >= 500) request.log.error(error);
    if (request.url.split('?')[0] === AUTHORIZATION_PATH) {
      return sendPage(reply, problem.status, renderErrorPage(problem.status >= 500 ? 'Something went wrong here. Try again from the app.' : problem.message));
    }
    if (problem.status >= 500) return sendOAuthError(reply, new OAuthError('invalid_request', 'Something went wrong on our side.', { status: 500 }));
    return sendOAuthError(reply, new OAuthError('invalid_request', problem.message, { status: problem.status }));
  });

  const crossOrigin = [RESOURCE_METADATA_PATH, AUTHORIZATION_SERVER_METADATA_PATH, REGISTRATION_PATH, TOKEN_PATH, REVOCATION_PATH];
  for (const path of crossOrigin) {
    app.options(path, async (request, reply) => {
      allowAnyOrigin(reply);
      reply.header('access-control-allow-methods', path.startsWith('/.well-known') ? 'GET' : 'POST');
      reply.header('access-control-allow-headers', request.headers['access-control-request-headers'] ?? 'content-type');
      reply.header('access-control-max-age', '600');
      return reply.code(204).header('cache-control', UNCACHEABLE).send();
    });
  }

  app.get(RESOURCE_METADATA_PATH, async (_request, reply) => {
    allowAnyOrigin(reply);
    reply.header('cache-control', UNCACHEABLE);
    return protectedResourceMetadata(endpoints);
  });

  app.get(AUTHORIZATION_SERVER_METADATA_PATH, async (_request, reply) => {
    allowAnyOrigin(reply);
    reply.header('cache-control', UNCACHEABLE);
    return authorizationServerMetadata(endpoints);
  });

  app.post(REGISTRATION_PATH, async (request, reply) => {
    allowAnyOrigin(reply);
    if (request.body instanceof URLSearchParams) throw new OAuthError('invalid_client_metadata', 'Send the client metadata as application/json.');
    const waitSec = limiter.take(request.ip, clock.now());
    if (waitSec > 0) {
      throw new OAuthError('temporarily_unavailable', 'Too many registrations from this address; try again later.', {
        headers: { 'retry-after': String(waitSec) },
      });
    }
    const client = await registerClient(store.oauth, request.body, clock.now());
    return reply.code(201).header('cache-control', 'no-store').header('pragma', 'no-cache').send(registrationAnswer(client));
  });

  const answerAuthorization = async (reply: FastifyReply, outcome: AuthorizationOutcome, redirectStatus: number): Promise<FastifyReply> => {
    if (outcome.kind === 'redirect') return reply.code(redirectStatus).header('cache-control', 'no-store').header('location', outcome.location).send();
    if (outcome.kind === 'page_error') return sendPage(reply, outcome.status, renderErrorPage(outcome.message));
    const { profile } = await loadProfile(store);
    return sendPage(reply, outcome.status, renderConsentPage(outcome.view, profile.name, endpoints.authorization));
  };

  app.get(AUTHORIZATION_PATH, async (request, reply) => {
    const query = new URL(request.url, 'http://query.invalid').searchParams;
    const outcome = await store.transaction((tx) => startAuthorization(tx, endpoints, paramsOf(query), clock.now()));
    return answerAuthorization(reply, outcome, 302);
  });

  app.post(AUTHORIZATION_PATH, async (request, reply) => {
    if (!(request.body instanceof URLSearchParams)) return sendPage(reply, 400, renderErrorPage('The form is incomplete. Start again from the app.'));
    const form = request.body;
    const outcome = await store.transaction((tx) =>
      answerConsent(
        tx,
        endpoints,
        {
          requestId: form.get('request_id') ?? undefined,
          csrfToken: form.get('csrf_token') ?? undefined,
          decision: form.get('decision') ?? undefined,
          ownerKey: form.get('owner_key') ?? undefined,
          scopes: form.getAll('scope'),
        },
        clock.now(),
      ),
    );
    // 303: the browser follows a form post's redirect with GET.
    return answerAuthorization(reply, outcome, 303);
  });

  app.post(TOKEN_PATH, async (request, reply) => {
    allowAnyOrigin(reply);
    const params = formOf(request);
    const clientId = basicClientId(request);
    const outcome = await store.transaction(async (tx) => exchangeToken(tx.oauth, endpoints, params, clientId, clock.now()));
    if (!outcome.ok) return sendOAuthError(reply, outcome.error);
    return reply.code(200).header('cache-control', 'no-store').header('pragma', 'no-cache').send(outcome.answer);
  });

  app.post(REVOCATION_PATH, async (request, reply) => {
    allowAnyOrigin(reply);
    const params = formOf(request);
    const clientId = basicClientId(request);
    await store.transaction((tx) => revokeToken(tx.oauth, params, clientId, clock.now()));
    return reply.code(200).header('cache-control', 'no-store').send();
  });
}
