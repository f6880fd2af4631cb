/**
 * list_api_keys, get_api_key, create_api_key, revoke_api_key (inbox spec §2 "API key", §4, §5).
 * Rules live in domain/access/key-management.ts; scope keys:write (the owner key has every scope).
 */
import { z } from 'zod';
import { PRESETS, type PresetName } from '../domain/access/api-keys.js';
import { createIntegrationKey, getKey, listKeys, revokeKey } from '../domain/access/key-management.js';
import { CREATE, PUT, READ, cursorPosition, inboxOperation, nextCursor, pageFields } from './context.js';
import { markAnswerSecret } from './secret-answers.js';

const PRESET_NAMES = Object.keys(PRESETS) as [PresetName, ...PresetName[]];
const keyIdField = z.string().min(1).max(64).describe('The key id.');
const idempotency_key = z.string().min(1).max(200).optional();
const instant = z.string().describe('ISO 8601 instant, UTC.');

const keyViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['owner', 'integration']).describe('owner keys are the owner; integration keys act within their scopes.'),
  preset: z.string().nullable(),
  scopes: z.array(z.string()),
  status: z.enum(['active', 'expired', 'revoked']),
  hint: z.string().describe('The first and last characters of the key, to tell keys apart; never the key.'),
  created_at: instant,
  created_by: z.string().describe('Who made it: owner or owner_ai.'),
  expires_at: instant.nullable(),
  revoked_at: instant.nullable(),
  last_used_at: instant.nullable().describe('To the minute.'),
  calls_outside_scopes: z
    .array(
      z.object({
        operation: z.string(),
        scope: z.string().describe('The scope the call needed.'),
        calls: z.number().int().describe('Calls made outside the scopes, refused ones included.'),
        refused: z.number().int().describe('Of those, refused because scopes were enforced.'),
        first_at: instant,
        last_at: instant,
      }),
    )
    .describe('Every operation this key called outside its scopes, with the scope needed.'),
});

const KEY_ERRORS = ['unauthorized', 'not_allowed'] as const;

export const listApiKeysOperation = inboxOperation({
  name: 'list_api_keys',
  title: 'List the keys',
  description: 'Owner and integration keys, newest first: name, preset, scopes, last use and every call made outside their scopes. Never a key itself. Paged.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/api-keys' },
  scope: 'keys:write',
  input: z.object({ ...pageFields }),
  output: z.object({ items: z.array(keyViewSchema), next_cursor: z.string().nullable() }),
  annotations: READ,
  errors: [...KEY_ERRORS, 'invalid_input'],
  run: async (ctx, input) => {
    const page = await listKeys(ctx.domain, { after: cursorPosition(input.cursor), limit: input.limit });
    return { items: page.keys, next_cursor: nextCursor(page.full ? page.last : null) };
  },
});

export const getApiKeyOperation = inboxOperation({
  name: 'get_api_key',
  title: 'Read one key',
  description: 'One key as in list_api_keys (never the key itself).',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/api-keys/{id}' },
  scope: 'keys:write',
  input: z.object({ id: keyIdField }),
  output: keyViewSchema,
  annotations: READ,
  errors: [...KEY_ERRORS, 'not_found'],
  run: (ctx, input) => getKey(ctx.domain, input.id),
});

export const createApiKeyOperation = inboxOperation({
  name: 'create_api_key',
  title: 'Make an integration key',
  description:
    'Makes an integration key with the scopes of a preset: automation, shop_sync, calendar_sync or read_only. The key (svc_own_…) is in this answer only; keep it safe.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'POST', path: '/v1/owner/api-keys', successStatus: 201 },
  answers: { location: true },
  scope: 'keys:write',
  input: z.object({
    name: z.string().trim().min(1).max(100).describe('What the key is for, such as "Calendar sync".'),
    preset: z.enum(PRESET_NAMES).describe('automation, shop_sync, calendar_sync or read_only (spec §5).'),
    expires_at: z.iso.datetime({ offset: true }).optional().describe('When the key stops working, ISO 8601 with offset; in the future.'),
    idempotency_key,
  }).strict(),
  output: keyViewSchema.extend({ key: z.string().describe('The key itself, svc_own_…; shown in this answer only.') }),
  annotations: CREATE,
  errors: [...KEY_ERRORS, 'invalid_input', 'idempotency_mismatch'],
  run: async (ctx, input, extras) => {
    const made = await createIntegrationKey(ctx.domain, ctx.caller, {
      name: input.name,
      preset: input.preset,
      expiresAt: input.expires_at === undefined ? null : Date.parse(input.expires_at),
    });
    markAnswerSecret(extras);
    extras.headers = { ...extras.headers, location: `/v1/owner/api-keys/${made.view.id}` };
    return { ...made.view, key: made.value };
  },
});

export const revokeApiKeyOperation = inboxOperation({
  name: 'revoke_api_key',
  title: 'Revoke a key',
  description: 'Revokes the key at once and for good; its next call is refused. Revoking a revoked key answers it unchanged.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'DELETE', path: '/v1/owner/api-keys/{id}' },
  scope: 'keys:write',
  input: z.object({ id: keyIdField, idempotency_key }).strict(),
  output: keyViewSchema,
  annotations: PUT,
  errors: [...KEY_ERRORS, 'not_found'],
  run: (ctx, input) => revokeKey(ctx.domain, ctx.caller, input.id),
});
