/**
 * Web Push for the owner (docs/web.md "Push"): the instance's VAPID public key a browser subscribes
 * with, and the browsers subscribed. The owner app's "turn on notifications" button calls
 * add_push_subscription with what the browser's PushManager gave; integrations may too.
 */
import { z } from 'zod';
import {
  addPushSubscription,
  listPushSubscriptions,
  pushSubscriptionInput,
  pushSubscriptionView,
  removePushSubscription,
} from '../domain/notifications/push-subscriptions.js';
import { CREATE, PUT, READ, idempotencyKeyField, inboxOperation } from './context.js';

export const getPushKeyOperation = inboxOperation({
  name: 'get_push_key',
  title: 'Read the push key',
  description: "The instance's VAPID public key (RFC 8292, base64url): a browser's PushManager.subscribe takes it as applicationServerKey.",
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/push/key' },
  scope: 'settings:read',
  input: z.object({}),
  output: z.object({ applicationServerKey: z.string() }),
  annotations: READ,
  errors: ['unauthorized'],
  run: (ctx) => Promise.resolve({ applicationServerKey: ctx.config.pushPublicKey ?? '' }),
});

export const listPushSubscriptionsOperation = inboxOperation({
  name: 'list_push_subscriptions',
  title: 'List the browsers that get push notices',
  description: 'The browsers the owner allowed to receive push notices: push service, label, last sent, last error.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/push/subscriptions' },
  scope: 'settings:read',
  input: z.object({}),
  output: z.object({ items: z.array(pushSubscriptionView) }),
  annotations: READ,
  errors: ['unauthorized'],
  run: async (ctx) => ({ items: await listPushSubscriptions(ctx.domain) }),
});

export const addPushSubscriptionOperation = inboxOperation({
  name: 'add_push_subscription',
  title: 'Send push notices to a browser',
  description:
    "Keeps a browser's push subscription (what PushManager.subscribe gave, as toJSON() writes it) so new requests, customers' messages and payments are pushed to it. The same endpoint again renews its keys.",
  audience: 'owner',
  kind: 'write',
  http: { method: 'POST', path: '/v1/owner/push/subscriptions', successStatus: 201 },
  scope: 'settings:write',
  input: z.object({ ...pushSubscriptionInput, idempotency_key: idempotencyKeyField }).strict(),
  output: pushSubscriptionView,
  annotations: CREATE,
  errors: ['unauthorized', 'invalid_input', 'idempotency_mismatch'],
  run: (ctx, input) => addPushSubscription(ctx.domain, ctx.caller, input, { allowLocal: ctx.config.allowLocalPush ?? false }),
});

export const removePushSubscriptionOperation = inboxOperation({
  name: 'remove_push_subscription',
  title: 'Stop push notices to a browser',
  description: 'Forgets a browser\'s push subscription; nothing more is pushed to it.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'DELETE', path: '/v1/owner/push/subscriptions/{id}' },
  scope: 'settings:write',
  input: z.object({ id: z.string().min(1).max(64).describe('The subscription id.'), idempotency_key: idempotencyKeyField }).strict(),
  output: z.object({ id: z.string(), removed: z.literal(true) }),
  annotations: PUT,
  errors: ['unauthorized', 'not_found'],
  run: (ctx, input) => removePushSubscription(ctx.domain, input.id),
});

export const PUSH_OPERATIONS = [getPushKeyOperation, listPushSubscriptionsOperation, addPushSubscriptionOperation, removePushSubscriptionOperation] as const;
