/**
 * The inbox's HTTP server: REST routes generated from the operation table, the OpenAPI document,
 * the manifest, health, and problem documents for every refusal (inbox spec §4, §7, §8).
 */
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import {
  PROBLEM_CODES,
  Problem,
  buildOpenApiDocument,
  installJsonParser,
  installProblemHandling,
  isProblemCode,
  mountRestOperations,
  sendProblem,
  toProblem,
  type AnyOperation,
} from '@svc/shared';
import type { OperationContext } from '../../operations/context.js';
import { runOperation, type RunnerDeps } from '../../operations/runner.js';
import { AGENT_GUIDE } from './agent-guide.js';
import { buildManifest } from './manifest.js';

/** Request bodies above 1 MiB are refused with 413 (inbox spec leaves the size to us). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface HttpServerOptions {
  deps: RunnerDeps;
  operations: readonly AnyOperation<OperationContext>[];
  logLevel: string;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function buildHttpServer(options: HttpServerOptions): FastifyInstance {
  const { deps, operations } = options;
  const problemsBase = `${deps.config.publicBaseUrl}/problems`;
  const app = Fastify({
    logger: options.logLevel === 'silent' ? false : { level: options.logLevel },
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: false,
    return503OnClosing: true,
    // Errors Fastify raises before routing (a malformed URL) skip the error handler; answer them as problems too.
    frameworkErrors: (error, _request, reply) => sendProblem(reply, toProblem(error), problemsBase),
  });
  const extraRoutes = [
    { method: 'GET' as const, path: '/healthz' },
    { method: 'GET' as const, path: '/openapi.json' },
    { method: 'GET' as const, path: '/.well-known/agent-inbox.json' },
    { method: 'GET' as const, path: '/problems/{code}' },
    { method: 'GET' as const, path: '/docs/agents' },
  ];

  installJsonParser(app, BODY_LIMIT_BYTES);
  installProblemHandling(app, {
    problemsBase: () => problemsBase,
    knownRoutes: () => [...operations.map((op) => ({ method: op.http.method, path: op.http.path })), ...extraRoutes],
    log: (error) => app.log.error(error),
  });

  mountRestOperations(app, {
    operations,
    execute: (op, input, request) =>
      runOperation(deps, op, input as Record<string, unknown>, {
        channel: 'rest',
        doorFamily: op.audience === 'owner' ? 'owner' : 'public',
        authorization: header(request, 'authorization'),
        idempotencyKeyHeader: header(request, 'idempotency-key'),
        accessTokenHeader: header(request, 'x-access-token'),
      }),
  });

  app.get('/healthz', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return { ok: true, version: deps.config.softwareVersion };
  });

  let openApiDocument: Record<string, unknown> | null = null;
  app.get('/openapi.json', async (_request, reply) => {
    openApiDocument ??= buildOpenApiDocument(
      operations,
      {
        title: 'Business inbox',
        version: deps.config.softwareVersion,
        description: 'One business\'s inbox: bookings, orders, quote requests, messages and refunds as items with state machines.',
        serverUrl: deps.config.publicBaseUrl,
      },
      { ownerKey: { type: 'http', scheme: 'bearer', description: 'An owner or integration key (svc_own_…).' } },
    );
    reply.header('cache-control', 'public, max-age=300');
    return openApiDocument;
  });

  app.get('/.well-known/agent-inbox.json', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return buildManifest(deps.store, deps.config, deps.clock.now());
  });

  app.get('/docs/agents', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return reply.type('text/markdown; charset=utf-8').send(AGENT_GUIDE);
  });

  app.get<{ Params: { code: string } }>('/problems/:code', async (request, reply) => {
    const code = request.params.code;
    if (!isProblemCode(code)) throw new Problem('not_found', `No problem type is called ${code}.`);
    reply.header('cache-control', 'public, max-age=86400');
    return { type: `${problemsBase}/${code}`, code, status: PROBLEM_CODES[code].status, title: PROBLEM_CODES[code].title };
  });

  return app;
}
