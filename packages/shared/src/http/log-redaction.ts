/**
 * No secret reaches a log line (docs/http.md): request URLs are logged with the values of secret
 * query parameters replaced, headers that carry credentials are never logged, and as a last line of
 * defence every written line has the values of our own credential formats masked, whatever logged
 * them and at whatever level.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';

/** Query parameters whose values are secrets (tokens, keys, one-time codes, passes, OAuth secrets). */
export const SECRET_QUERY_PARAMETERS: ReadonlySet<string> = new Set([
  'access_token',
  'token',
  'key',
  'code',
  'pass',
  'client_secret',
  'code_verifier',
  'refresh_token',
  'id_token',
  'secret',
  'password',
  'owner_key',
  'csrf_token',
  'signature',
]);

/**
 * Request headers that carry credentials. Idempotency keys are not secrets (they name a request,
 * and open nothing) but are client-chosen and may be derived from one, so they are masked too.
 */
export const SECRET_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'x-access-token',
  'svc-pass',
  'svc-agent-key',
  'cookie',
  'set-cookie',
  'x-inbox-email-secret',
  'idempotency-key',
]);

export const REDACTED = '[redacted]';

/**
 * Our credential formats (item tokens, owner and integration keys, OAuth tokens and codes, agent
 * keys, passes, webhook secrets): the prefix is kept, so a line still says which kind was there.
 */
const CREDENTIAL_PATTERN = /\b(svc_(?:tok|own|oat|ort|oac|agent|key|pass|code|csrf|whsec)_|svcpass1_|whsec_)[A-Za-z0-9_.~+/=-]+/g;

/** Masks every credential-shaped value in text. */
export function maskCredentials(text: string): string {
  // Every format starts with `svc` or `whsec_`: most lines (every request's) hold neither, and skip the pattern.
  if (!text.includes('svc') && !text.includes('whsec_')) return text;
  return text.replace(CREDENTIAL_PATTERN, `$1${REDACTED}`);
}

/** A URL (path and query) with the values of secret query parameters replaced; the path is kept. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return maskCredentials(url);
  const path = url.slice(0, q);
  const query = url
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const rawName = eq === -1 ? part : part.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // a malformed escape: judge the raw name
      }
      return eq !== -1 && SECRET_QUERY_PARAMETERS.has(name.toLowerCase()) ? `${rawName}=${REDACTED}` : part;
    })
    .join('&');
  return maskCredentials(`${path}?${query}`);
}

/** Headers with credentials replaced, for anything that chooses to log headers. */
export function redactHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : typeof value === 'string' ? maskCredentials(value) : value;
  }
  return out;
}

/** What a request log line says of the request: method, the redacted URL, host and peer; never headers or body. */
export function requestLogSerializer(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    // Anything logged under `req` comes here, a plain object too: only a text URL is read.
    url: typeof request.url === 'string' ? redactUrl(request.url) : undefined,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** The same for a request the framework never saw (answer-replay.ts, which serves only when no proxy is trusted): its peer is the client. */
export function rawRequestLogSerializer(request: IncomingMessage): Record<string, unknown> {
  return {
    method: request.method,
    url: typeof request.url === 'string' ? redactUrl(request.url) : undefined,
    host: request.headers.host ?? '',
    remoteAddress: request.socket?.remoteAddress,
    remotePort: request.socket?.remotePort,
  };
}

/** pino options every service logger takes: the request serializer, paths redacted, and the line mask. */
export function redactingLoggerOptions(): {
  serializers: { req: (request: FastifyRequest) => Record<string, unknown> };
  redact: { paths: string[]; censor: string };
  hooks: { streamWrite: (line: string) => string };
} {
  // No `req.headers` paths: every `req` goes through requestLogSerializer first, which never keeps
  // headers, and a path under `req` made pino run its redaction on every request line for nothing.
  const headerPaths = [...SECRET_HEADERS].flatMap((name) => [`headers["${name}"]`, `request.headers["${name}"]`]);
  return {
    serializers: { req: requestLogSerializer },
    redact: { paths: headerPaths, censor: REDACTED },
    hooks: { streamWrite: maskCredentials },
  };
}
