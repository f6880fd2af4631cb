/**
 * The owner's settings document (inbox spec §2 "Settings document", §4 get/update_settings):
 * defaults, validation, merge (null removes a key so its default applies) and secret redaction.
 * Pure functions; storage keeps the document and its version.
 */
import { z } from 'zod';
import { Problem, fieldsFromZod, type FieldProblem } from '@svc/shared';
import { normaliseNetworksPatch, type NetworkPolicy } from './network-origins.js';

export const REDACTED = '[redacted]';
/** Paths of values that are secrets: read back redacted, kept when written back as read or left out. */
export const SECRET_PATHS = ['email.inboundSecret'] as const;

const networkEntry = z
  .object({
    enabled: z.boolean().describe('Whether this network is used.'),
    issue: z.boolean().optional().describe('Whether it gives first-time customers a key.'),
  })
  .loose();

export const settingsSchema = z
  .object({
    email: z
      .object({
        inboundSecret: z.string().min(16).max(200).nullable().describe('Shared secret of the inbound email webhook (secret).'),
      })
      .strict(),
    networks: z.record(z.url(), networkEntry).describe('Networks keyed by origin.'),
    security: z
      .object({
        aiMayCreateKeys: z.boolean().describe("Whether the owner's AI may create and revoke integration keys."),
        enforceScopes: z.boolean().describe('Refuse calls outside a key\'s scopes instead of only recording them.'),
      })
      .strict(),
    booking: z
      .object({
        cancellationWindowMinutes: z.number().int().min(0).max(60 * 24 * 60).describe('A confirmed booking may be cancelled freely until this many minutes before it starts.'),
        lateCancellation: z
          .enum(['record', 'refuse'])
          .describe('After the window: `record` cancels and records a late cancellation; `refuse` refuses to cancel.'),
        autoCompleteHours: z.number().int().min(1).max(24 * 90).describe('Hours after its end when a confirmed booking is marked completed by the system.'),
      })
      .strict(),
    orders: z
      .object({
        payDays: z.number().int().min(1).max(365).describe('Days after a payment request when an unpaid order lapses.'),
        handover: z
          .enum(['collection', 'delivery', 'both'])
          .optional()
          .describe("How orders reach customers: collected at the counter, sent, or both (when absent). Only the owner app's words for the order's steps follow it."),
      })
      .strict(),
    quotes: z
      .object({
        defaultValidityHours: z.number().int().min(1).max(24 * 365).describe('Validity of a quote sent without a date.'),
      })
      .strict(),
    notifications: z
      .object({
        ownerEmail: z
          .email()
          .max(254)
          .nullable()
          .describe("Where the owner's notices go (new requests, customers' messages, payments), gathered for up to 30 seconds into one mail; null: none by mail."),
        customerReminders: z.boolean().describe('Mail the customer a reminder the day before a confirmed booking.'),
      })
      .strict(),
  })
  .strict();

export type Settings = z.infer<typeof settingsSchema>;

export const DEFAULT_SETTINGS: Settings = Object.freeze({
  email: { inboundSecret: null },
  networks: {},
  security: { aiMayCreateKeys: false, enforceScopes: false },
  booking: { cancellationWindowMinutes: 24 * 60, lateCancellation: 'record', autoCompleteHours: 48 },
  orders: { payDays: 14 },
  quotes: { defaultValidityHours: 14 * 24 },
  notifications: { ownerEmail: null, customerReminders: true },
}) as Settings;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Merges `patch` over `base`: objects merge key by key, `null` deletes, anything else replaces. */
export function mergeDocument(base: JsonObject, patch: JsonObject): JsonObject {
  const result: JsonObject = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else if (isObject(value) && isObject(result[key])) result[key] = mergeDocument(result[key] as JsonObject, value);
    // A new object is merged over nothing, so a null inside it removes (a document written back as read has them).
    else if (isObject(value)) result[key] = mergeDocument({}, value);
    else result[key] = structuredClone(value);
  }
  return result;
}

/** Fills what the stored document lacks from the defaults (a removed key falls back to its default). */
export function withDefaults(stored: JsonObject): Settings {
  return mergeDocument(DEFAULT_SETTINGS as unknown as JsonObject, stored) as unknown as Settings;
}

export function getPath(doc: JsonObject, path: string): Json | undefined {
  let node: Json | undefined = doc;
  for (const part of path.split('.')) {
    if (!isObject(node)) return undefined;
    node = node[part];
  }
  return node;
}

export function setPath(doc: JsonObject, path: string, value: Json | undefined): void {
  const parts = path.split('.');
  let node: JsonObject = doc;
  for (const part of parts.slice(0, -1)) {
    if (!isObject(node[part])) node[part] = {};
    node = node[part] as JsonObject;
  }
  const last = parts[parts.length - 1] as string;
  if (value === undefined) delete node[last];
  else node[last] = value;
}

/** The document as an owner reads it: set secrets replaced by a marker, and their paths named. */
export function redact(settings: Settings): { settings: JsonObject; redacted: string[] } {
  const copy = structuredClone(settings) as unknown as JsonObject;
  const redacted: string[] = [];
  for (const path of SECRET_PATHS) {
    const value = getPath(copy, path);
    if (typeof value === 'string' && value.length > 0) {
      setPath(copy, path, REDACTED);
      redacted.push(path);
    }
  }
  return { settings: copy, redacted };
}

/**
 * Applies an owner's write: a secret sent back as the redaction marker keeps its stored value.
 * Returns the new stored document (only explicit values; defaults are filled on read) or refuses.
 */
export function applySettingsWrite(
  stored: Record<string, unknown>,
  patch: unknown,
  policy: NetworkPolicy = { allowLocalNetworks: false },
): Record<string, unknown> {
  if (!isObject(patch)) {
    throw new Problem('invalid_input', 'settings must be an object.', {
      fields: [{ path: 'settings', problem: 'invalid', message: 'settings must be an object.' }],
    });
  }
  const incoming = structuredClone(patch);
  for (const path of SECRET_PATHS) {
    if (getPath(incoming, path) === REDACTED) setPath(incoming, path, undefined);
  }
  // Networks are https origins, kept in their origin form (network-origins.ts).
  if (isObject(incoming.networks)) {
    const problems: FieldProblem[] = [];
    const storedNetworks = isObject(stored.networks) ? stored.networks : {};
    incoming.networks = normaliseNetworksPatch(incoming.networks, storedNetworks, policy, problems) as JsonObject;
    if (problems.length > 0) {
      throw new Problem('invalid_input', `Fix these fields: ${[...new Set(problems.map((f) => f.path))].join(', ')}.`, { fields: problems });
    }
  }
  const next = mergeDocument(stored as JsonObject, incoming);
  const parsed = settingsSchema.safeParse(withDefaults(next));
  if (!parsed.success) {
    // Paths as the caller wrote them: inside the `settings` field of the request.
    const fields = fieldsFromZod(parsed.error).map((f) => ({ ...f, path: f.path === '(body)' ? 'settings' : `settings.${f.path}` }));
    throw new Problem('invalid_input', `Fix these fields: ${[...new Set(fields.map((f) => f.path))].join(', ')}.`, { fields });
  }
  return next;
}
