/**
 * The frame every service's HTTP server shares: Fastify with problem documents for every refusal
 * (including those Fastify raises before routing), the JSON body parser, /healthz, /openapi.json
 * generated from the operation table, and /problems/{code}. Services add their own routes.
 */
import { isIP } from 'node:net';
import { SettingError } from '../errors/setting-error.js';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import helmet from 'helmet';
import pino from 'pino';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROBLEM_CODES, isProblemCode } from '../errors/problem-codes.js';
import { Problem } from '../errors/problem.js';
import type { JsonSchema } from '../operations/json-schema.js';
import type { AnyOperation, HttpMethod } from '../operations/operation.js';
import { buildOpenApiDocument, type OpenApiInfo } from './openapi.js';
import { installCors, type CorsRule } from './cors.js';
import { AnswerReplay, registerAnswerReplay, requestIdSequence } from './answer-replay.js';
import { answerWithEtag, etagOfText } from './etag.js';
import { redactingLoggerOptions } from './log-redaction.js';
import { RequestLineWriter, standardOutputLines } from './request-log.js';
import { installJsonParser, installProblemHandling, routePattern, sendProblem, toProblem } from './rest-door.js';

/** Path parameters may be this long (a domain is up to 253 characters); longer is a 400, not a 500. */
export const MAX_PATH_PARAMETER_LENGTH = 512;

export interface ServiceAppOptions {
  logLevel: string;
  bodyLimitBytes: number;
  problemsBase: string;
  /** Where log lines go (tests capture them); standard output when absent. */
  logStream?: { write(line: string): void };
  /** Which proxies' X-Forwarded-For to believe (TRUST_PROXY, trustProxyFromSetting); none by default. */
  trustProxy?: boolean | number | string[];
}

/**
 * TRUST_PROXY: empty or `false` believes no proxy (the peer is the client); `true` believes every hop
 * (only behind a proxy that overwrites X-Forwarded-For); a whole number believes that many hops; a
 * comma-separated list names the proxies' addresses or CIDR ranges.
 */
export function trustProxyFromSetting(value: string | undefined): boolean | number | string[] {
  const text = (value ?? '').trim();
  if (text === '' || text === 'false' || text === '0') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  const proxies = text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  const refused = proxies.find((entry) => !isProxyAddress(entry));
  if (refused !== undefined) throw new SettingError(`TRUST_PROXY must be true, a number of hops, or the proxies' addresses or CIDRs separated by commas, not ${refused}`);
  return proxies;
}

/** What Fastify's proxy list takes: an address, a CIDR (address/bits or address/netmask), or loopback, linklocal, uniquelocal. */
function isProxyAddress(entry: string): boolean {
  if (entry === 'loopback' || entry === 'linklocal' || entry === 'uniquelocal') return true;
  const [address = '', range, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (range === undefined) return true;
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (family === 4 ? 32 : 128);
  return family === 4 && isIP(range) === 4;
}

export function createServiceApp(options: ServiceAppOptions): FastifyInstance {
  // One type for Fastify's overloads (a union of the three forms picks none of them).
  const trustProxy = (options.trustProxy ?? false) as string[];
  // Request lines carry the URL with secret query values replaced and no headers; every line is masked (log-redaction.ts).
  const sink = options.logLevel === 'silent' ? null : (options.logStream ?? standardOutputLines());
  const logger = sink ? pino({ level: options.logLevel, ...redactingLoggerOptions() }, sink) : null;
  const requestLines = logger && sink ? new RequestLineWriter(logger, sink) : null;
  const nextRequestId = requestIdSequence();
  // Kept answers are replayed in front of Fastify (answer-replay.ts), unless a proxy's word on the client counts.
  const replay = (options.trustProxy ?? false) === false ? new AnswerReplay({ lines: requestLines, nextRequestId }) : null;
  const app = Fastify({
    ...(logger ? { loggerInstance: logger as FastifyBaseLogger } : { logger: false }),
    genReqId: nextRequestId,
    bodyLimit: options.bodyLimitBytes,
    // The client's address (rate limits, logs) is the peer's unless a proxy in front is trusted.
    trustProxy,
    return503OnClosing: true,
    logController: new OneLineRequestLog(requestLines),
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    // A request Node cannot even parse (a bad header line) never reaches Fastify: answer a problem document on the socket.
    clientErrorHandler: (error, socket) => {
      if (!socket.writable) return;
      const oversized = (error as { code?: string }).code === 'HPE_HEADER_OVERFLOW';
      const status = oversized ? 431 : 400;
      const body = JSON.stringify({
        type: `${options.problemsBase}/bad_request`,
        title: oversized ? 'Request header fields too large' : 'Bad request',
        status,
        detail: oversized ? 'The request headers are too large.' : 'The request could not be parsed as HTTP (a malformed request line or header).',
        code: 'bad_request',
      });
      socket.end(
        `HTTP/1.1 ${status} ${oversized ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
    // Errors Fastify raises before routing (a malformed URL, an over-long parameter) skip the error handler.
    frameworkErrors: (error, _request, reply) =>
      sendProblem(
        reply,
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new Problem('bad_request', `A path parameter is longer than ${MAX_PATH_PARAMETER_LENGTH} characters.`)
          : toProblem(error),
        options.problemsBase,
      ),
  });
  if (replay) {
    replay.attach(app.server);
    registerAnswerReplay(app, replay);
  }
  installJsonParser(app, options.bodyLimitBytes);
  // The same headers on every answer (problems and MCP included): what helmet sets, learnt once.
  const securityHeaders = helmetHeaders();
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(securityHeaders);
    done();
  });
  return app;
}

/**
 * One log line per request, written when it is answered: the request (its redacted URL, host and
 * peer: requestLogSerializer), the status and the time. Fastify writes two (one on arrival); the
 * line of an answered request is built as text (request-log.ts); errors go through pino.
 */
class OneLineRequestLog extends LogController {
  constructor(private readonly lines: RequestLineWriter | null) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else this.lines?.completed(request, reply);
  }
}

/**
 * What helmet sends on every answer, problems included, tuned for JSON APIs read from
 * anywhere (docs/security.md): nosniff; a policy that lets an answer load nothing and be framed by
 * nobody; `Cross-Origin-Resource-Policy: cross-origin`, so public answers stay readable by pages on
 * other origins (CORS decides who may read); no referrer; HSTS for a year without claiming the
 * business's other subdomains. HTML pages (the consent page) set their own stricter policy.
 */
const API_SECURITY_HEADERS = {
  contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] } },
  crossOriginResourcePolicy: { policy: 'cross-origin' as const },
  referrerPolicy: { policy: 'no-referrer' as const },
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: false },
  xFrameOptions: { action: 'deny' as const },
};

/**
 * The headers helmet's middleware sets with API_SECURITY_HEADERS, recorded once: none of them depends
 * on the request, and running the middleware per request (thirteen validated setHeader calls) cost a
 * few percent of a small answer.
 */
function helmetHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  helmet(API_SECURITY_HEADERS)({} as IncomingMessage, recorder as unknown as ServerResponse, () => {});
  return Object.freeze(headers) as Record<string, string>;
}

export interface ServiceRoutesOptions<Ctx> {
  operations: readonly AnyOperation<Ctx>[];
  /** Routes outside the operation table, for telling 405 from 404. */
  extraRoutes: readonly { method: HttpMethod; path: string }[];
  problemsBase: string;
  version: string;
  openApi: Omit<OpenApiInfo, 'version'>;
  securitySchemes?: Record<string, JsonSchema>;
  /** Which CORS rule each path follows (docs/http.md); every path is public when absent. */
  corsRule?: (path: string) => CorsRule;
  /**
   * Cache-Control of /openapi.json and /problems/{code}, as the service's contract has it: by default
   * a shared cache may keep them five minutes and a day (they change with the software only).
   */
  documentsCacheControl?: { openApi: string; problems: string };
}

const DOCUMENTS_CACHE_CONTROL = { openApi: 'public, max-age=300', problems: 'public, max-age=86400' };

export function installServiceRoutes<Ctx>(app: FastifyInstance, options: ServiceRoutesOptions<Ctx>): void {
  const cacheControl = options.documentsCacheControl ?? DOCUMENTS_CACHE_CONTROL;
  const routes = [
    ...options.operations.map((op) => ({ method: op.http.method, path: op.http.path })),
    ...options.extraRoutes,
    { method: 'GET' as const, path: '/healthz' },
    { method: 'GET' as const, path: '/openapi.json' },
    { method: 'GET' as const, path: '/problems/{code}' },
  ];
  installProblemHandling(app, {
    problemsBase: () => options.problemsBase,
    knownRoutes: () => routes,
    log: (error) => app.log.error(error),
  });
  installCors(app, {
    ruleFor: options.corsRule ?? (() => ({ kind: 'public' })),
    methodsAt: (path) => routes.filter((route) => routePattern(route.path).test(path)).map((route) => route.method),
    problemsBase: options.problemsBase,
  });

  app.get('/healthz', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return { ok: true, version: options.version };
  });

  // Built and serialised once: the same bytes every time, with their ETag (If-None-Match answers 304).
  // One Buffer, so the compression hook keeps its compressed forms too (a 0.5 MB document is not compressed per request).
  let openApi: { bytes: Buffer; etag: string } | null = null;
  app.get('/openapi.json', async (request, reply) => {
    if (!openApi) {
      const bytes = Buffer.from(JSON.stringify(buildOpenApiDocument(options.operations, { ...options.openApi, version: options.version }, options.securitySchemes)));
      openApi = { bytes, etag: etagOfText(bytes) };
    }
    reply.header('cache-control', cacheControl.openApi);
    return answerWithEtag(request, reply, openApi.bytes, openApi.etag);
  });

  app.get<{ Params: { code: string } }>('/problems/:code', async (request, reply) => {
    const code = request.params.code;
    if (!isProblemCode(code)) throw new Problem('not_found', `No problem type is called ${code}.`);
    reply.header('cache-control', cacheControl.problems);
    const entry: { status: number; title: string; description?: string } = PROBLEM_CODES[code];
    return {
      type: `${options.problemsBase}/${code}`,
      code,
      status: entry.status,
      title: entry.title,
      ...(entry.description === undefined ? {} : { description: entry.description }),
    };
  });
}
