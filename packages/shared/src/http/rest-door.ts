/**
 * Mounts an operation table on Fastify as REST routes. It assembles one input object from path,
 * query and body, turns query strings into the types the schema asks for, validates with the
 * operation's own zod schema, and renders every refusal as an RFC 9457 problem document.
 * The service supplies `execute`, where authentication, idempotency and storage happen.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Problem } from '../errors/problem.js';
import { isStorageProblemCode, storageFailureKind, storageProblem } from '../storage/storage-health.js';
import { problemFromZod } from '../errors/zod-fields.js';
import { ZodError, type z } from 'zod';
import { jsonSchemaOf, objectProperties, primitiveKind } from '../operations/json-schema.js';
import { pathParameterNames, type AnyOperation, type HttpMethod, type SerializedBody } from '../operations/operation.js';
import { answerReplayOf } from './answer-replay.js';
import { answerWithEtag } from './etag.js';

export interface OperationOutcome {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  /** The body already serialised (e.g. to compute an ETag); sent as is when present. */
  json?: string;
  /** The body's bytes with their ETag, kept from an earlier call; sent as they are (a 200 of a tagged read). */
  serialized?: SerializedBody;
}

export interface RestDoorOptions<Ctx, Admission = unknown> {
  operations: readonly AnyOperation<Ctx>[];
  /**
   * Runs before the input is read and validated: authentication and the scope a call needs, so a
   * caller refused anyway is refused for that, never told first what its body lacks. What it
   * returns is handed to `execute`.
   */
  admit?: (op: AnyOperation<Ctx>, request: FastifyRequest) => Promise<Admission>;
  /** Runs a validated call; the service wraps authentication, idempotency and transactions here. */
  execute: (op: AnyOperation<Ctx>, input: unknown, request: FastifyRequest, admission: Admission | undefined) => Promise<OperationOutcome>;
  /** The refusal for input that fails its schema; defaults to 422 invalid_input with fields. */
  inputProblem?: (error: z.ZodError) => Problem;
  /** Reads whose 200 answers carry an ETag of their bytes, and 304 when If-None-Match still holds. */
  etag?: (op: AnyOperation<Ctx>) => boolean;
}

export function mountRestOperations<Ctx, Admission = unknown>(app: FastifyInstance, options: RestDoorOptions<Ctx, Admission>): void {
  for (const op of options.operations) {
    const properties = objectProperties(jsonSchemaOf(op.input, 'input'));
    const pathNames = pathParameterNames(op.http.path);
    const tagged = op.kind === 'read' && (options.etag?.(op) ?? false);
    app.route({
      method: op.http.method,
      url: op.http.path.replace(/\{([^}]+)\}/g, ':$1'),
      handler: async (request, reply) => {
        const admission = options.admit ? await options.admit(op, request) : undefined;
        const inputProblem = options.inputProblem ?? problemFromZod;
        const repeated = repeatedQueryParameters(request, properties);
        if (repeated) throw inputProblem(repeated);
        const notDecimal = nonDecimalNumbers(request, properties);
        if (notDecimal) throw inputProblem(notDecimal);
        const raw = assembleInput(request, pathNames, properties);
        const parsed = op.input.safeParse(raw);
        if (!parsed.success) throw inputProblem(parsed.error);
        const outcome = await options.execute(op, parsed.data, request, admission);
        for (const [name, value] of Object.entries(outcome.headers)) reply.header(name, value);
        if (!reply.hasHeader('cache-control')) {
          reply.header('cache-control', op.cacheMaxAgeSec ? `public, max-age=${op.cacheMaxAgeSec}` : 'no-store');
        }
        reply.code(outcome.status);
        if (outcome.status === 204 || outcome.status === 304) return reply.send();
        // The same Buffer each time: the compression hook keeps its compressed forms with it.
        if (outcome.serialized && outcome.status === 200) {
          // The same for everyone who asks this without credentials, while it holds: kept whole and replayed.
          if (outcome.serialized.holds) answerReplayOf(app)?.offer(request, outcome.serialized.holds);
          if (tagged && !reply.hasHeader('etag')) return answerWithEtag(request, reply, outcome.serialized.bytes, outcome.serialized.etag);
          return reply.type('application/json; charset=utf-8').send(outcome.serialized.bytes);
        }
        const json = outcome.json ?? JSON.stringify(outcome.body);
        if (tagged && outcome.status === 200 && !reply.hasHeader('etag')) return answerWithEtag(request, reply, json);
        return reply.type('application/json; charset=utf-8').send(json);
      },
    });
  }
}

function assembleInput(
  request: FastifyRequest,
  pathNames: string[],
  properties: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const query = (request.query ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(query)) {
    const schema = properties[name];
    input[name] = schema ? coerceQueryValue(value, schema) : value;
  }
  const body = request.body;
  if (body !== undefined && body !== null) {
    if (typeof body !== 'object' || Array.isArray(body)) {
      throw new Problem('invalid_input', 'The body must be a JSON object.', {
        fields: [{ path: '(body)', problem: 'invalid', message: 'The body must be a JSON object.' }],
      });
    }
    Object.assign(input, body);
  }
  const params = (request.params ?? {}) as Record<string, string>;
  for (const name of pathNames) input[name] = params[name];
  return input;
}

/**
 * A query parameter sent more than once (`?limit=1&limit=100`) is refused, not read as its last
 * value: which one counts would be a guess, and a proxy or cache may guess otherwise. Only a
 * parameter whose schema is a list (such as `types`) may repeat; one the operation does not take
 * is left alone, as it always was. The refusal is each service's schema refusal (422
 * invalid_input in the inbox, 400 bad_request in the directory) naming the parameter.
 */
function repeatedQueryParameters(request: FastifyRequest, properties: Record<string, Record<string, unknown>>): z.ZodError | null {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const issues = Object.entries(query)
    .filter(([name, value]) => Array.isArray(value) && properties[name] !== undefined && !isListParameter(properties[name]))
    .map(([name]) => ({ code: 'custom' as const, path: [name], message: `${name} was sent more than once; send it once.`, input: undefined }));
  return issues.length === 0 ? null : new ZodError(issues);
}

/** A whole number in a query string: decimal digits only. */
const DECIMAL_INTEGER = /^[0-9]+$/;
/** A number in a query string: decimal digits with an optional sign and fraction. */
const DECIMAL_NUMBER = /^[+-]?[0-9]+(\.[0-9]+)?$/;

/**
 * A number in a query string is written in decimal and nothing else: `limit=0x10`, `limit=1e2`,
 * `limit= 5` or `radius_km=Infinity` are refused naming the parameter, not read as what
 * JavaScript's Number() makes of them (16, 100, 5). A whole number takes digits only; another
 * number an optional sign and fraction (`-9.14`). JSON bodies and MCP arguments carry numbers
 * already and are not concerned.
 */
function nonDecimalNumbers(request: FastifyRequest, properties: Record<string, Record<string, unknown>>): z.ZodError | null {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const issues = [];
  for (const [name, value] of Object.entries(query)) {
    const schema = properties[name];
    if (schema === undefined || typeof value !== 'string') continue;
    const kind = primitiveKind(schema);
    if (kind === 'integer' && !DECIMAL_INTEGER.test(value)) {
      issues.push({ code: 'custom' as const, path: [name], message: `${name} is a whole number written in decimal digits (0-9), such as 20.`, input: undefined });
    } else if (kind === 'number' && !DECIMAL_NUMBER.test(value)) {
      issues.push({ code: 'custom' as const, path: [name], message: `${name} is a number written in decimal: digits with an optional sign and fraction, such as 2.5.`, input: undefined });
    }
  }
  return issues.length === 0 ? null : new ZodError(issues);
}

function isListParameter(schema: Record<string, unknown> | undefined): boolean {
  return schema !== undefined && primitiveKind(schema) === 'array';
}

/** Query strings carry text; the schema says what the value is. Anything unconvertible is left for zod to refuse. */
function coerceQueryValue(value: unknown, schema: Record<string, unknown>): unknown {
  const kind = primitiveKind(schema);
  const single = Array.isArray(value) ? value[value.length - 1] : value;
  switch (kind) {
    case 'integer':
      return typeof single === 'string' && DECIMAL_INTEGER.test(single) ? Number(single) : single;
    case 'number':
      return typeof single === 'string' && DECIMAL_NUMBER.test(single) ? Number(single) : single;
    case 'boolean':
      return single === 'true' ? true : single === 'false' ? false : single;
    case 'array': {
      const list = Array.isArray(value) ? value : [value];
      return list.flatMap((v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : [v]));
    }
    default:
      return single;
  }
}

export interface ProblemHandlingOptions {
  problemsBase: () => string;
  /** Routes that exist, for telling 405 from 404. */
  knownRoutes: () => readonly { method: HttpMethod | 'HEAD'; path: string }[];
  log?: (error: unknown) => void;
}

/** Makes every refusal of the server a problem document: our own, Fastify's, unknown routes and methods. */
export function installProblemHandling(app: FastifyInstance, options: ProblemHandlingOptions): void {
  app.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error);
    // A storage failure is logged once per episode by the database's StorageHealth, not per call.
    if (problem.status >= 500 && !isStorageProblemCode(problem.code)) (options.log ?? ((e) => request.log.error(e)))(error);
    return sendProblem(reply, problem, options.problemsBase());
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = options
      .knownRoutes()
      .filter((route) => routePattern(route.path).test(path))
      .map((route) => route.method);
    if (allowed.length > 0) {
      // A GET route answers HEAD too, so HEAD belongs in Allow.
      const allow = [...new Set(allowed.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])))].join(', ');
      return sendProblem(
        reply,
        new Problem('method_not_allowed', `${request.method} is not allowed on ${path}; use ${allow}.`, { headers: { allow } }),
        options.problemsBase(),
      );
    }
    return sendProblem(reply, new Problem('not_found', `No resource at ${request.method} ${path}.`), options.problemsBase());
  });
}

const patternCache = new Map<string, RegExp>();
/** A route path (`/v1/items/{id}` or `/v1/items/:id`) as an exact pattern of request paths. */
export function routePattern(path: string): RegExp {
  let pattern = patternCache.get(path);
  if (!pattern) {
    const source = path
      .split(/(\{[^}]+\}|:[a-zA-Z_]+)/)
      .map((part) => (part.startsWith('{') || part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    // Exact: the router does not ignore a trailing slash, so /v1/business/ is another (unknown) path.
    pattern = new RegExp(`^${source}$`);
    patternCache.set(path, pattern);
  }
  return pattern;
}

export function sendProblem(reply: FastifyReply, problem: Problem, problemsBase: string): FastifyReply {
  for (const [name, value] of Object.entries(problem.headers)) reply.header(name, value);
  reply.header('cache-control', 'no-store');
  return reply.code(problem.status).type('application/problem+json; charset=utf-8').send(JSON.stringify(problem.toDocument(problemsBase)));
}

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message?: string;
}

export function toProblem(error: unknown): Problem {
  if (error instanceof Problem) return error;
  const e = (error ?? {}) as FastifyLikeError;
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new Problem('payload_too_large', 'The request body is larger than this server accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new Problem('unsupported_media_type', 'Send the body as application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new Problem('bad_request', 'The Content-Length header does not match the body.');
    case 'FST_ERR_BAD_URL':
      return new Problem('bad_request', 'The URL is malformed.');
  }
  if (e.statusCode === 400) return new Problem('bad_request', e.message ?? 'Bad request.');
  if (e.statusCode === 413) return new Problem('payload_too_large', 'The request body is larger than this server accepts.');
  if (e.statusCode === 415) return new Problem('unsupported_media_type', 'Send the body as application/json.');
  // The disk refused a write (full, or an I/O error): 503 with Retry-After, nothing was saved.
  const storage = storageFailureKind(error);
  if (storage !== null) return storageProblem(storage);
  return new Problem('internal_error', 'Something went wrong on our side; the request was not completed.');
}

/** `"__proto__"` in JSON text, each letter plain or escaped as `\u00XX` (hex digits in either case). */
const PROTO_KEY_SPELLED = /"(?:_|\\u005[fF])(?:_|\\u005[fF])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[fF])(?:t|\\u0074)(?:o|\\u006[fF])(?:_|\\u005[fF])(?:_|\\u005[fF])"/;

/** Whether an object anywhere in a parsed JSON value has an own `__proto__` key (JSON.parse makes it an own key). */
function holdsProtoKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(holdsProtoKey);
  if (Object.hasOwn(value, '__proto__')) return true;
  return Object.values(value).some(holdsProtoKey);
}

const rawBodies = new WeakMap<FastifyRequest, Buffer>();

/** The body bytes of a request exactly as received (JSON bodies), or an empty buffer when it had none. */
export function rawBodyOf(request: FastifyRequest): Buffer {
  return rawBodies.get(request) ?? Buffer.alloc(0);
}

/** The only body parser: JSON (and +json types); an empty body is no body, bad JSON a clear 400, anything else 415. */
export function installJsonParser(app: FastifyInstance, bodyLimitBytes: number): void {
  // Only JSON is taken: Fastify's built-in text/plain parser would let a plain-text body through to
  // validation (422) instead of the 415 a body in another media type gets.
  app.removeAllContentTypeParsers();
  const parse = (request: FastifyRequest, body: string | Buffer, done: (error: Error | null, value?: unknown) => void): void => {
    // The bytes as received are kept: a signed request's Content-Digest is over them, never over re-serialised JSON.
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
    rawBodies.set(request, bytes);
    const text = bytes.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return done(new Problem('bad_request', 'The body is not valid JSON.'), undefined);
    }
    // A `__proto__` key would become the prototype of the assembled input; refused as Fastify's own parser does.
    // The parsed value is searched only when the text spells one, escaped or not (a reviver on every parse cost more).
    if (PROTO_KEY_SPELLED.test(text) && holdsProtoKey(value)) return done(new Problem('bad_request', 'The body must not contain a "__proto__" key.'), undefined);
    done(null, value);
  };
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: bodyLimitBytes }, parse);
  app.addContentTypeParser(/^application\/[a-z0-9.+-]*\+json$/, { parseAs: 'buffer', bodyLimit: bodyLimitBytes }, parse);
}
