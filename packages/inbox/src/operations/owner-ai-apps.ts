/**
 * list_ai_apps and revoke_ai_app: the AI apps the owner connected over OAuth (docs/oauth.md), so an
 * owner can see what each may do and cut one off. Rules live in domain/access/oauth/ai-apps.ts.
 */
import { isUlid } from '@svc/shared';
import { z } from 'zod';
import { listAiApps, revokeAiApp } from '../domain/access/oauth/ai-apps.js';
import { PUT, READ, cursorPosition, inboxOperation, nextCursor, pageFields } from './context.js';

const instant = z.string().describe('ISO 8601 instant, UTC.');

const aiAppSchema = z.object({
  id: z.string().describe('The AI app (its grant): the actor id of its calls.'),
  client_id: z.string().describe('The OAuth client it registered as.'),
  name: z.string().describe('The name the app gave itself at registration.'),
  client_uri: z.string().nullable(),
  redirect_hosts: z.array(z.string()).describe('Where the app returns after consent: who it really is.'),
  scopes: z.array(z.string()).describe('What the owner granted.'),
  active: z.boolean(),
  created_at: instant.describe('When the owner approved it.'),
  last_used_at: instant.nullable().describe('To the minute.'),
  revoked_at: instant.nullable(),
  revoked_reason: z
    .string()
    .nullable()
    .describe('owner, client (it revoked its token), refresh_reuse or code_reuse (a copied token: revoked for safety), superseded (approved again), resource_changed.'),
  calls_outside_scopes: z
    .array(
      z.object({
        operation: z.string(),
        scope: z.string().describe('The scope the call needed.'),
        calls: z.number().int(),
        refused: z.number().int(),
        first_at: instant,
        last_at: instant,
      }),
    )
    .describe('Every operation this app called outside its scopes, with the scope needed.'),
});

export const listAiAppsOperation = inboxOperation({
  name: 'list_ai_apps',
  title: 'List connected AI apps',
  description: 'AI apps connected over OAuth, newest first: name, where they return, granted scopes, last use. Revoked ones with include_revoked. Paged.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/ai-apps' },
  scope: 'keys:write',
  input: z.object({
    include_revoked: z.boolean().default(false).describe('Also list apps that were disconnected.'),
    ...pageFields,
  }),
  output: z.object({ items: z.array(aiAppSchema), next_cursor: z.string().nullable() }),
  annotations: READ,
  errors: ['unauthorized', 'not_allowed', 'invalid_input'],
  run: async (ctx, input) => {
    const page = await listAiApps(ctx.domain.store, {
      after: cursorPosition(input.cursor, isUlid),
      limit: input.limit,
      includeRevoked: input.include_revoked,
    });
    return { items: page.apps, next_cursor: nextCursor(page.last) };
  },
});

export const revokeAiAppOperation = inboxOperation({
  name: 'revoke_ai_app',
  title: 'Disconnect an AI app',
  description: 'Revokes the app at once: its access and refresh tokens stop working. An AI app may disconnect only itself. Revoking twice answers the app unchanged.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'DELETE', path: '/v1/owner/ai-apps/{id}' },
  scope: 'keys:write',
  input: z.object({
    id: z.string().min(1).max(64).describe('The AI app id from list_ai_apps.'),
    idempotency_key: z.string().min(1).max(200).optional(),
  }).strict(),
  output: aiAppSchema,
  annotations: PUT,
  errors: ['unauthorized', 'not_allowed', 'not_found'],
  run: (ctx, input) => revokeAiApp(ctx.domain.store, ctx.caller, input.id, ctx.domain.clock.now()),
});
