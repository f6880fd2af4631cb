/**
 * Webhook operations (inbox spec §4 "Webhook and event operations"): endpoints, their deliveries,
 * test events and replays. Reads need `events:read`; every change needs `integrations:write`.
 * Paths the spec leaves open are in docs/webhooks.md.
 */
import { isUlid } from '@svc/shared';
import { z } from 'zod';
import { listDeliveries, replayDelivery, replayMissing } from '../domain/webhooks/deliveries.js';
import { changeEndpoint, createEndpoint, deleteEndpoint, endpointView, loadEndpoint, rotateSecret, type EndpointDeps } from '../domain/webhooks/endpoints.js';
import { MAX_EXTRA_HEADERS } from '../domain/webhooks/endpoint-headers.js';
import { sendTestEvent } from '../webhooks/test-send.js';
import { CHANGE, CREATE, PUT, READ, cursorPosition, idempotencyKeyField, inboxOperation, nextCursor, pageFields, type OperationContext } from './context.js';
import { markAnswerSecret } from './secret-answers.js';

const READ_SCOPE = 'events:read';
const WRITE_SCOPE = 'integrations:write';
const OWNER_ERRORS = ['unauthorized', 'not_allowed'] as const;

function endpointDeps(ctx: OperationContext): EndpointDeps {
  return { secrets: ctx.secrets, urls: { allowLocal: ctx.config.allowLocalWebhooks ?? false } };
}

const webhookIdField = z.string().min(1).max(64).describe('The webhook endpoint id.');
const patternsField = z
  .array(z.string().min(1).max(100))
  .max(100)
  .describe('Event types to receive: an exact type (booking.confirm), an item type and .* (booking.*), or * for all. [] receives nothing.');
const payloadStyleField = z.enum(['thin', 'full']).describe('thin (default): ids, state and version; full also sends the item, its transitions, a sentence and the customer.');

export const endpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  payload_style: z.enum(['thin', 'full']),
  headers: z.array(z.string()).describe('Names of the extra headers; their values are never shown again.'),
  active: z.boolean(),
  disabled_at: z.string().nullable().describe('When the endpoint became inactive (after five days of only failures, or paused).'),
  last_error: z.string().nullable(),
  last_error_at: z.string().nullable(),
  failing_since: z.string().nullable().describe('Start of the current run of failures; null after a success.'),
  previous_secret_expires_at: z.string().nullable().describe('Until then the secret before the last rotation signs too.'),
  created_at: z.string(),
  updated_at: z.string(),
});

const endpointWithSecretSchema = endpointSchema.extend({
  secret: z.string().describe('The signing secret, whsec_ and base64 of 32 bytes: shown in this answer only.'),
});

export const deliverySchema = z.object({
  id: z.string(),
  endpoint_id: z.string(),
  webhook_id: z.string().describe('The event id, sent as webhook-id on every attempt and replay.'),
  event_type: z.string(),
  item_id: z.string().nullable(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  response_code: z.number().int().nullable(),
  duration_ms: z.number().int().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: z.string().nullable(),
  last_attempt_at: z.string().nullable(),
  created_at: z.string(),
});

export const listWebhooksOperation = inboxOperation({
  name: 'list_webhooks',
  title: 'List webhook endpoints',
  description: 'Every endpoint with its subscriptions, active, disabled_at and last error; header names only, never a secret.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/webhooks' },
  scope: READ_SCOPE,
  input: z.object({}),
  output: z.object({ items: z.array(endpointSchema) }),
  annotations: READ,
  errors: [...OWNER_ERRORS],
  run: async (ctx) => ({ items: (await ctx.domain.store.webhooks.listEndpoints()).map(endpointView) }),
});

export const getWebhookOperation = inboxOperation({
  name: 'get_webhook',
  title: 'Read one webhook endpoint',
  description: 'One endpoint as list_webhooks shows it.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/webhooks/{id}' },
  scope: READ_SCOPE,
  input: z.object({ id: webhookIdField }),
  output: endpointSchema,
  annotations: READ,
  errors: [...OWNER_ERRORS, 'not_found'],
  run: async (ctx, input) => endpointView(await loadEndpoint(ctx.domain, input.id)),
});

export const createWebhookOperation = inboxOperation({
  name: 'create_webhook',
  title: 'Register a webhook endpoint',
  description:
    'Registers an https URL on a public host to receive signed events (Standard Webhooks). The signing secret is in this answer only; a retry with the same idempotency key returns the same endpoint and secret.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'POST', path: '/v1/owner/webhooks', successStatus: 201 },
  answers: { location: true },
  scope: WRITE_SCOPE,
  input: z.object({
    url: z.string().min(1).max(2_000).describe('https URL on a public host name (no IP address, localhost or internal name).'),
    events: patternsField.default(['*']),
    payload_style: payloadStyleField.default('thin'),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .describe(`Up to ${MAX_EXTRA_HEADERS} extra headers sent with every delivery; values are sealed and never shown again.`),
    idempotency_key: idempotencyKeyField,
  }).strict(),
  output: endpointWithSecretSchema,
  annotations: CREATE,
  errors: [...OWNER_ERRORS, 'invalid_input', 'idempotency_mismatch'],
  run: async (ctx, input, extras) => {
    const made = await createEndpoint(ctx.domain, endpointDeps(ctx), {
      url: input.url,
      events: input.events,
      payloadStyle: input.payload_style,
      headers: input.headers,
    });
    markAnswerSecret(extras);
    extras.headers = { ...extras.headers, location: `/v1/owner/webhooks/${made.endpoint.id}` };
    return { ...made.endpoint, secret: made.secret };
  },
});

export const updateWebhookOperation = inboxOperation({
  name: 'update_webhook',
  title: 'Change a webhook endpoint',
  description:
    'Changes url, events, payload_style or headers (merged: a name with a value sets it, a name with null removes it). {"active": true} re-enables an inactive endpoint and clears its failure run; {"active": false} pauses it.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'PATCH', path: '/v1/owner/webhooks/{id}' },
  scope: WRITE_SCOPE,
  input: z.object({
    id: webhookIdField,
    url: z.string().min(1).max(2_000).optional(),
    events: patternsField.optional(),
    payload_style: payloadStyleField.optional(),
    headers: z.record(z.string(), z.string().nullable()).optional().describe('Merged: a value sets the header, null removes it.'),
    active: z.boolean().optional(),
    idempotency_key: idempotencyKeyField,
  }).strict(),
  output: endpointSchema,
  annotations: PUT,
  errors: [...OWNER_ERRORS, 'not_found', 'invalid_input', 'idempotency_mismatch'],
  run: (ctx, input) =>
    changeEndpoint(ctx.domain, endpointDeps(ctx), input.id, {
      url: input.url,
      events: input.events,
      payloadStyle: input.payload_style,
      headers: input.headers,
      active: input.active,
    }),
});

export const deleteWebhookOperation = inboxOperation({
  name: 'delete_webhook',
  title: 'Delete a webhook endpoint',
  description: 'Deletes the endpoint and its deliveries; nothing more is sent to it. To stop it for a while, update_webhook {"active": false}.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'DELETE', path: '/v1/owner/webhooks/{id}' },
  scope: WRITE_SCOPE,
  input: z.object({ id: webhookIdField, idempotency_key: idempotencyKeyField }).strict(),
  output: z.object({ id: z.string(), deleted: z.literal(true) }),
  annotations: CHANGE,
  errors: [...OWNER_ERRORS, 'not_found', 'idempotency_mismatch'],
  run: async (ctx, input) => {
    await deleteEndpoint(ctx.domain, input.id);
    return { id: input.id, deleted: true as const };
  },
});

export const rotateWebhookSecretOperation = inboxOperation({
  name: 'rotate_webhook_secret',
  title: 'Rotate a webhook signing secret',
  description: 'Makes a new signing secret, shown in this answer only. For 24 hours every delivery carries signatures by both the new and the old secret.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'POST', path: '/v1/owner/webhooks/{id}/rotate-secret' },
  scope: WRITE_SCOPE,
  input: z.object({ id: webhookIdField, idempotency_key: idempotencyKeyField }).strict(),
  output: endpointWithSecretSchema,
  annotations: CHANGE,
  errors: [...OWNER_ERRORS, 'not_found', 'idempotency_mismatch'],
  run: async (ctx, input, extras) => {
    const rotated = await rotateSecret(ctx.domain, endpointDeps(ctx), input.id);
    markAnswerSecret(extras);
    return { ...rotated.endpoint, secret: rotated.secret };
  },
});

export const sendTestEventOperation = inboxOperation({
  name: 'send_test_event',
  title: 'Send a test event',
  description:
    'Sends a real, signed inbox.test event (with the extra headers) to the endpoint now and answers with the delivery: status, response_code, duration and error. Nothing is created. It waits for the receiver (up to 10 s) outside any transaction, so it takes no idempotency key.',
  audience: 'owner',
  // Not a stored write: it creates nothing, and must not hold the database while the receiver answers.
  kind: 'read',
  http: { method: 'POST', path: '/v1/owner/webhooks/{id}/test' },
  scope: WRITE_SCOPE,
  input: z.object({ id: webhookIdField }),
  output: deliverySchema,
  annotations: CREATE,
  errors: [...OWNER_ERRORS, 'not_found'],
  run: (ctx, input) => sendTestEvent(ctx.domain, { secrets: ctx.secrets, allowLocal: ctx.config.allowLocalWebhooks ?? false }, input.id, ctx.caller),
});

const deliveryStatusField = z.enum(['pending', 'succeeded', 'failed']).optional().describe('Only deliveries in this status.');

export const listWebhookDeliveriesOperation = inboxOperation({
  name: 'list_webhook_deliveries',
  title: "List an endpoint's deliveries",
  description: 'Recent deliveries of one endpoint, newest first, paged: status, response code, duration, last error, attempts; webhook_id is the event id.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/webhooks/{id}/deliveries' },
  scope: READ_SCOPE,
  input: z.object({ id: webhookIdField, status: deliveryStatusField, ...pageFields }),
  output: z.object({ items: z.array(deliverySchema), next_cursor: z.string().nullable() }),
  annotations: READ,
  errors: [...OWNER_ERRORS, 'not_found', 'invalid_input'],
  run: async (ctx, input) => {
    const { items, lastId } = await listDeliveries(ctx.domain, {
      endpointId: input.id,
      status: input.status,
      after: cursorPosition(input.cursor, isUlid),
      limit: input.limit,
    });
    return { items, next_cursor: nextCursor(lastId) };
  },
});

export const listDeliveriesOperation = inboxOperation({
  name: 'list_deliveries',
  title: 'List every delivery',
  description: 'Recent deliveries across every endpoint, newest first, paged.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/deliveries' },
  scope: READ_SCOPE,
  input: z.object({ status: deliveryStatusField, ...pageFields }),
  output: z.object({ items: z.array(deliverySchema), next_cursor: z.string().nullable() }),
  annotations: READ,
  errors: [...OWNER_ERRORS, 'invalid_input'],
  run: async (ctx, input) => {
    const { items, lastId } = await listDeliveries(ctx.domain, { status: input.status, after: cursorPosition(input.cursor, isUlid), limit: input.limit });
    return { items, next_cursor: nextCursor(lastId) };
  },
});

export const replayWebhookDeliveryOperation = inboxOperation({
  name: 'replay_webhook_delivery',
  title: 'Replay one delivery',
  description:
    'Sends the delivery again on its own row: the same webhook-id with a fresh timestamp and signature, one more attempt, now. A thin transition event is the same bytes; a full or <type>.message event is rebuilt from the item as it stands. The endpoint must be active.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'POST', path: '/v1/owner/deliveries/{id}/replay', successStatus: 202 },
  scope: WRITE_SCOPE,
  input: z.object({ id: z.string().min(1).max(64).describe('The delivery id.'), idempotency_key: idempotencyKeyField }).strict(),
  output: deliverySchema,
  annotations: CHANGE,
  errors: [...OWNER_ERRORS, 'not_found', 'wrong_state', 'idempotency_mismatch'],
  run: (ctx, input) => replayDelivery(ctx.domain, input.id),
});

export const replayMissingWebhookDeliveriesOperation = inboxOperation({
  name: 'replay_missing_webhook_deliveries',
  title: 'Replay missing events',
  description:
    'Queues every event the endpoint subscribes to, recorded since `since`, that it never received (no delivery, or a failed one). Reads at most 500 events: when `truncated`, call again with `after` = next_after. Asking again without `after` queues nothing new. The endpoint must be active.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'POST', path: '/v1/owner/webhooks/{id}/replay', successStatus: 202 },
  scope: WRITE_SCOPE,
  input: z.object({
    id: webhookIdField,
    since: z.iso.datetime({ offset: true }).describe('ISO 8601 instant: events recorded at or after it.'),
    after: z.string().min(1).max(512).optional().describe('next_after of the previous call, to read the next 500.'),
    idempotency_key: idempotencyKeyField,
  }).strict(),
  output: z.object({
    queued: z.number().int().describe('Deliveries queued by this call.'),
    scanned: z.number().int().describe('Events read (at most 500).'),
    truncated: z.boolean(),
    next_after: z.string().nullable(),
  }),
  annotations: CREATE,
  errors: [...OWNER_ERRORS, 'not_found', 'wrong_state', 'invalid_input', 'idempotency_mismatch'],
  run: (ctx, input) => replayMissing(ctx.domain, input.id, { sinceMs: Date.parse(input.since), after: input.after }),
});
