/**
 * Reading what a directory network says of this inbox (directory spec §4 POST /v1/instances and
 * GET /v1/instances/{domain}/status), tolerantly: a network's answer is outside data, so anything
 * unexpected reads as "not known" rather than failing a ping that did go through.
 */
import { z } from 'zod';

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
