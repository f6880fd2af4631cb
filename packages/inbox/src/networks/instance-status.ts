/**
 * Reading what a directory network says of this inbox (directory spec §4 POST /v1/instances and
 * GET /v1/instances/{domain}/status), tolerantly: a network's answer is outside data, so anything
 * unexpected reads as "not known" rather than failing a ping that did go through.
 */
import { z } from 'zod';
import type { NetworkStanding } from '../store/network-status-store.js';

export const REGISTRATION_STATES = ['pending', 'verified', 'unreachable'] as const;

export interface InstanceStatus {
  status: (typeof REGISTRATION_STATES)[number];
  verifiedAt: number | null;
  listed: boolean | null;
}

const statusAnswer = z.object({
  status: z.enum(REGISTRATION_STATES),
  verified_at: z.iso.datetime({ offset: true }).nullable().optional(),
  listed: z.boolean().optional(),
});

export function parseInstanceStatus(body: string): InstanceStatus {
  const parsed = statusAnswer.safeParse(parseJson(body));
  if (!parsed.success) throw new Error('the network answered a status we could not read');
  const verifiedAt = parsed.data.verified_at ? Date.parse(parsed.data.verified_at) : null;
  return { status: parsed.data.status, verifiedAt, listed: parsed.data.listed ?? null };
}

/** The state in a registration answer ({status: pending, …}), or null when it says none we know. */
export function registrationStatus(body: string): InstanceStatus['status'] | null {
  const parsed = z.object({ status: z.enum(REGISTRATION_STATES) }).safeParse(parseJson(body));
  return parsed.success ? parsed.data.status : null;
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return null;
  }
}

/** Errors are shown to the owner "in a few words": one line, at most 200 characters. */
export function fewWords(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length <= 200 ? line : `${line.slice(0, 199)}…`;
}

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** The answer to a signed ping (docs/receipts.md "What get_networks shows"): the standing it reports. */
const pingAnswer = z.object({
  standing: z.object({
    tier: z.enum(['new', 'building', 'trusted']),
    score: z.number().min(0).max(1),
    ranked: z.boolean(),
    kept: count,
    broken: count,
    customers: count,
    as_of: z.iso.datetime({ offset: true }).nullable(),
  }),
  receipts: z.object({ accepted: count, acknowledged: count }).optional(),
  rules: z.number().int().min(0).max(1_000_000).optional(),
  manifest: z
    .object({
      current: z.boolean(),
      read_at: z.iso.datetime({ offset: true }).nullable(),
      read_after: z.iso.datetime({ offset: true }).nullable(),
    })
    .optional()
    .catch(undefined),
});

/** What the network said of the manifest it holds: whether it is the one the ping named, when it read it, and when it reads it again. */
export interface ManifestReading {
  current: boolean;
  readAt: number | null;
  readAfter: number | null;
}

export interface PingAnswer {
  standing: NetworkStanding;
  receipts: { accepted: number; acknowledged: number } | null;
  rules: number | null;
  /** Null when the network does not say (an older network). */
  manifest: ManifestReading | null;
}

/** The standing a ping answer carries, or null when it carries none we can read (a network that does not report one). */
export function parsePingAnswer(body: string): PingAnswer | null {
  const parsed = pingAnswer.safeParse(parseJson(body));
  if (!parsed.success) return null;
  const { standing, receipts, rules, manifest } = parsed.data;
  return {
    standing: {
      tier: standing.tier,
      score: standing.score,
      ranked: standing.ranked,
      kept: standing.kept,
      broken: standing.broken,
      customers: standing.customers,
      asOf: standing.as_of === null ? null : new Date(standing.as_of).toISOString(),
    },
    receipts: receipts ?? null,
    rules: rules ?? null,
    manifest: manifest
      ? { current: manifest.current, readAt: manifest.read_at === null ? null : Date.parse(manifest.read_at), readAfter: manifest.read_after === null ? null : Date.parse(manifest.read_after) }
      : null,
  };
}

/** The reason in `Svc-Signature: invalid; reason="…"` (a network that took a ping as unsigned), or null. */
export function invalidSignatureReason(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value || !/^\s*invalid\b/i.test(value)) return null;
  const reason = /reason="?([A-Za-z0-9_.:-]{1,60})"?/.exec(value)?.[1];
  return reason ?? 'invalid';
}
