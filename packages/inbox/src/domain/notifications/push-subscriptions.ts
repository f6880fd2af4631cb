/**
 * The browsers the owner allowed to receive Web Push (docs/web.md "Push"): a subscription is what a
 * browser's PushManager gives (endpoint, the P-256 key and the auth secret its messages are encrypted
 * to). The endpoint is a push service's https URL; its keys are checked to be a real P-256 point and
 * 16 bytes, so nothing is kept that could never be sent to. The same endpoint again renews its keys.
 */
import { createPublicKey } from 'node:crypto';
import { z } from 'zod';
import { Problem, newId, type FieldProblem } from '@svc/shared';
import type { DomainContext } from '../context.js';
import type { Caller } from '../types.js';
import type { PushSubscriptionRecord } from '../../store/notification-store.js';

export const pushSubscriptionInput = {
  endpoint: z.string().min(1).max(2048).describe("The push service's URL from the browser's PushSubscription (https)."),
  keys: z
    .object({
      p256dh: z.string().min(1).max(200).describe("The browser's P-256 public key, base64url (65 bytes)."),
      auth: z.string().min(1).max(100).describe("The browser's authentication secret, base64url (16 bytes)."),
    })
    .strict(),
  expirationTime: z.number().nullable().optional().describe("As the browser's PushSubscription.toJSON() gives it; not used."),
  label: z.string().trim().min(1).max(100).optional().describe('A few words naming the device, such as "Phone".'),
};

export const pushSubscriptionView = z.object({
  id: z.string(),
  push_service: z.string().describe("The push service's origin (the endpoint itself is not shown)."),
  label: z.string().nullable(),
  created_at: z.string(),
  last_sent_at: z.string().nullable(),
  last_error: z.string().nullable(),
});

export type PushSubscriptionView = z.infer<typeof pushSubscriptionView>;

export function viewOfSubscription(s: PushSubscriptionRecord): PushSubscriptionView {
  return {
    id: s.id,
    push_service: new URL(s.endpoint).origin,
    label: s.label,
    created_at: new Date(s.createdAt).toISOString(),
    last_sent_at: s.lastSentAt === null ? null : new Date(s.lastSentAt).toISOString(),
    last_error: s.lastError,
  };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function endpointProblem(endpoint: string, allowLocal: boolean): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'must be a URL';
  }
  const local = LOOPBACK.has(url.hostname) || url.hostname.startsWith('127.');
  if (url.username || url.password) return 'must not carry credentials';
  if (local && !allowLocal) return 'names this machine; a push service is on the internet';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) return 'must be an https URL';
  return null;
}

function base64urlBytes(value: string): Buffer | null {
  return /^[A-Za-z0-9_-]+={0,2}$/.test(value) ? Buffer.from(value.replace(/=+$/, ''), 'base64url') : null;
}

function isP256Point(bytes: Buffer): boolean {
  if (bytes.length !== 65 || bytes[0] !== 4) return false;
  try {
    createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: bytes.subarray(1, 33).toString('base64url'), y: bytes.subarray(33).toString('base64url') }, format: 'jwk' });
    return true;
  } catch {
    return false;
  }
}

export async function addPushSubscription(
  ctx: DomainContext,
  caller: Caller,
  input: { endpoint: string; keys: { p256dh: string; auth: string }; label?: string | undefined },
  policy: { allowLocal: boolean },
): Promise<PushSubscriptionView> {
  const fields: FieldProblem[] = [];
  const endpoint = endpointProblem(input.endpoint, policy.allowLocal);
  if (endpoint) fields.push({ path: 'endpoint', problem: 'invalid', message: `endpoint ${endpoint}.` });
  const p256dh = base64urlBytes(input.keys.p256dh);
  if (!p256dh || !isP256Point(p256dh)) fields.push({ path: 'keys.p256dh', problem: 'invalid', message: 'keys.p256dh must be an uncompressed P-256 public key in base64url (65 bytes).' });
  const auth = base64urlBytes(input.keys.auth);
  if (!auth || auth.length !== 16) fields.push({ path: 'keys.auth', problem: 'invalid', message: 'keys.auth must be 16 bytes in base64url.' });
  if (fields.length > 0) throw new Problem('invalid_input', `Fix these fields: ${fields.map((f) => f.path).join(', ')}.`, { fields });
  const nowMs = ctx.clock.now();
  const saved = await ctx.store.notifications.saveSubscription({
    id: newId(nowMs),
    endpoint: input.endpoint,
    p256dh: (p256dh as Buffer).toString('base64url'),
    auth: (auth as Buffer).toString('base64url'),
    keyId: caller.kind === 'owner' ? caller.keyId : null,
    label: input.label ?? null,
    createdAt: nowMs,
    lastSentAt: null,
    lastError: null,
  });
  return viewOfSubscription(saved);
}

export async function listPushSubscriptions(ctx: DomainContext): Promise<PushSubscriptionView[]> {
  return (await ctx.store.notifications.listSubscriptions()).map(viewOfSubscription);
}

export async function removePushSubscription(ctx: DomainContext, id: string): Promise<{ id: string; removed: true }> {
  if (!(await ctx.store.notifications.removeSubscription(id))) throw new Problem('not_found', `No push subscription has id ${id}.`);
  return { id, removed: true };
}
