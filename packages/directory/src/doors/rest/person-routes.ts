/**
 * The persons API of a network (docs/identity.md "The network side"). Calls of member inboxes are
 * signed (svc-instance/1) and heard only from instances this network verified; a person's own calls
 * carry their key. None of it is a public read: no answer holds anything about a customer but the
 * standing the contract lists, and only to the business the customer presented a pass at.
 */
import type { FastifyInstance } from 'fastify';
import { Problem, createInstanceKeyCache, publicFetch } from '@svc/shared';
import type { InstanceAuth } from './instance-auth.js';
import { issuePerson, passFromKey, presentToNetwork, recordOutcome, revokeWithKey, type PersonsDeps } from '../../domain/persons/persons.js';

export const PERSON_ROUTES = [
  { method: 'POST', path: '/v1/persons' },
  { method: 'POST', path: '/v1/presentations' },
  { method: 'POST', path: '/v1/presentations/{id}/outcomes' },
  { method: 'POST', path: '/v1/passes' },
  { method: 'POST', path: '/v1/passes/revoke' },
] as const;

function body(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Problem('bad_request', 'The body must be a JSON object.');
  return value as Record<string, unknown>;
}

export function installPersonRoutes(app: FastifyInstance, deps: PersonsDeps, auth: InstanceAuth): void {
  const receiptKeys = createInstanceKeyCache({
    now: () => deps.ctx.clock.now(),
    fetchKeys: async (instance) => {
      const answer = await publicFetch(`${instance}/.well-known/agent-inbox.json`, {
        timeoutMs: deps.ctx.settings.manifestTimeoutMs,
        maxBytes: deps.ctx.settings.manifestMaxBytes,
        allowLoopback: deps.ctx.settings.allowLocalInboxes,
        allowHttp: deps.ctx.settings.allowLocalInboxes,
      });
      return (JSON.parse(answer.body) as { receipt_keys?: { keys?: unknown[] } }).receipt_keys?.keys ?? [];
    },
  });
  const noStore = { 'cache-control': 'no-store' };

  app.post('/v1/persons', async (request, reply) => {
    const instance = await auth.verify(request);
    const answer = await issuePerson(deps, instance, body(request.body));
    return reply.code(answer.status === 'issued' ? 201 : 200).headers(noStore).send(answer);
  });

  app.post('/v1/presentations', async (request, reply) => {
    const instance = await auth.verify(request);
    return reply.headers(noStore).send(await presentToNetwork(deps, instance, body(request.body)));
  });

  app.post('/v1/presentations/:id/outcomes', async (request, reply) => {
    const instance = await auth.verify(request);
    const id = (request.params as { id: string }).id;
    const answer = await recordOutcome(deps, instance, id, body(request.body), async (kid) => (await receiptKeys.lookup({ keyid: kid, instance })) ?? null);
    return reply.headers(noStore).send(answer);
  });

  app.post('/v1/passes', async (request, reply) => {
    const input = body(request.body);
    if (typeof input.key !== 'string') throw new Problem('unauthorized', 'Send the person\'s key as key.');
    const delegate = input.delegate_jkt;
    if (delegate !== undefined && (typeof delegate !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(delegate))) throw new Problem('bad_request', 'delegate_jkt is an RFC 7638 thumbprint.');
    const made = await passFromKey(deps, input.key, delegate);
    if (made.status !== 'issued') throw new Problem('unauthorized', made.status === 'revoked' ? 'That key was revoked.' : 'That key is not one this network gave out.');
    return reply.code(201).headers(noStore).send({ pass: made.pass, pass_ref: made.pass_ref, delegated_to: delegate ?? null });
  });

  app.post('/v1/passes/revoke', async (request, reply) => reply.headers(noStore).send(await revokeWithKey(deps, body(request.body))));
}
