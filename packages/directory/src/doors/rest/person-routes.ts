/**
 * The persons API of a network (docs/identity.md "The network side"). Calls of member inboxes are
 * signed (svc-instance/1) and heard only from instances this network verified; a person's own calls
 * carry their key. None of it is a public read: no answer holds anything about a customer but the
 * standing the contract lists, and only to the business the customer presented a pass at.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Problem, rawBodyOf } from '@svc/shared';
import { verifyMemberCall } from '../../domain/signed/signed-call.js';
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

export function installPersonRoutes(app: FastifyInstance, deps: PersonsDeps): void {
  const { ctx } = deps;
  /** The calling member inbox's origin: the one verifier of signed instance calls (domain/signed/signed-call.ts), over the body's exact bytes. */
  const signer = async (request: FastifyRequest): Promise<string> => {
    const caller = await verifyMemberCall(ctx, {
      method: request.method,
      url: new URL(request.url, new URL(ctx.settings.baseUrl).origin),
      headers: request.headers,
      body: rawBodyOf(request),
    });
    return caller.origin;
  };
  const noStore = { 'cache-control': 'no-store' };

  app.post('/v1/persons', async (request, reply) => {
    const instance = await signer(request);
    const answer = await issuePerson(deps, instance, body(request.body));
    return reply.code(answer.status === 'issued' ? 201 : 200).headers(noStore).send(answer);
  });

  app.post('/v1/presentations', async (request, reply) => {
    const instance = await signer(request);
    return reply.headers(noStore).send(await presentToNetwork(deps, instance, body(request.body)));
  });

  app.post('/v1/presentations/:id/outcomes', async (request, reply) => {
    const instance = await signer(request);
    const id = (request.params as { id: string }).id;
    const answer = await recordOutcome(deps, instance, id, body(request.body), async (kid) => ctx.instanceKeys.lookup({ keyid: kid, instance }));
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
