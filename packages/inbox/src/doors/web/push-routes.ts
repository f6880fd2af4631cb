/**
 * What the owner app's push button talks to (docs/web.md "Push"): the service worker's script, at
 * /app/push-worker.js so its scope is the app, and POST /app/push/subscriptions, where the script
 * sends the browser's subscription as JSON. That write is the owner's, through add_push_subscription
 * (its refusals are problem documents), with the session's CSRF token in X-CSRF-Token.
 */
import type { FastifyInstance } from 'fastify';
import { Problem, cookieValue } from '@svc/shared';
import { readFileSync } from 'node:fs';
import { csrfTokenMatches } from '../../domain/access/owner-sessions.js';
import { callAs, sameOrigin, sessionOf, type AppEnvironment } from './app-kit.js';

const WORKER_SCRIPT = new URL('../../../dist/doors/web/client/push-worker.js', import.meta.url);

function workerBytes(): Buffer | null {
  try {
    return readFileSync(WORKER_SCRIPT);
  } catch {
    return null;
  }
}

export function installPushRoutes(scope: FastifyInstance, env: AppEnvironment): void {
  const worker = workerBytes();
  if (worker) {
    scope.get('/app/push-worker.js', async (_request, reply) =>
      // A service worker is checked for updates on each visit; kept nowhere, like every answer but the catalogue's (docs/http.md).
      reply.header('cache-control', 'no-store').header('x-content-type-options', 'nosniff').type('text/javascript; charset=utf-8').send(worker),
    );
  }
  scope.post('/app/push/subscriptions', async (request, reply) => {
    const session = await sessionOf(env, request);
    if (!session) throw new Problem('unauthorized', 'Sign in to the owner app first.');
    const token = cookieValue(request.headers.cookie, env.cookies.session) ?? '';
    const csrf = request.headers['x-csrf-token'];
    if (!sameOrigin(env, request) || !csrfTokenMatches(token, typeof csrf === 'string' ? csrf : null)) {
      throw new Problem('not_allowed', 'This request did not come from the owner app (its X-CSRF-Token or origin is wrong).');
    }
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new Problem('invalid_input', 'Send the browser\'s push subscription as a JSON object.', { fields: [{ path: '(body)', problem: 'invalid', message: 'Must be a JSON object.' }] });
    }
    const view = await callAs(env, session, 'add_push_subscription', body as Record<string, unknown>);
    return reply.code(201).header('cache-control', 'no-store').send(view);
  });
}
