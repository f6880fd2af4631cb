/** Inbox registration, status and ping (directory spec §4 /v1/instances). */
import { z } from 'zod';
import { instanceStatus, pingInstance, registerInstance } from '../domain/registration/instances.js';
import { READ, directoryOperation } from './context.js';

const statusSchema = z.object({
  domain: z.string(),
  status: z.enum(['pending', 'verified', 'unreachable']),
  listed: z.boolean(),
  manifest_url: z.string(),
  delisted_at: z.string().nullable(),
  dormant_since: z.string().nullable(),
  verified_at: z.string().nullable(),
  last_checked_at: z.string().nullable(),
  last_ping_at: z.string().nullable(),
  fail_count: z.number().int().min(0),
  verification: z.object({ attempts: z.number().int().min(0), next_attempt_at: z.string().optional(), last_error: z.string().optional() }).optional(),
});

export const registerInstanceOperation = directoryOperation({
  name: 'register_instance',
  title: 'Register an inbox',
  description: 'Queues verification of the inbox at https://<domain>: its /.well-known/agent-inbox.json is fetched and checked; poll the status URL.',
  audience: 'public',
  kind: 'write',
  http: { method: 'POST', path: '/v1/instances', successStatus: 202 },
  input: z.object({ domain: z.string().max(300).describe('Host name of the inbox, such as salon.example.') }),
  output: z.object({ domain: z.string(), status: z.string(), status_url: z.string(), manifest_url: z.string(), message: z.string() }),
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false },
  errors: ['bad_request'],
  run: (ctx, input) => registerInstance(ctx.domain, input.domain),
});

export const getInstanceStatus = directoryOperation({
  name: 'get_instance_status',
  title: 'Read a registered inbox\'s status',
  description: 'Whether the inbox verified, is listed, when it was checked and pinged, and how verification is going.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/instances/{domain}/status' },
  answers: { etag: true },
  input: z.object({ domain: z.string().max(253) }),
  output: statusSchema,
  annotations: READ,
  errors: ['bad_request', 'not_found'],
  run: (ctx, input) => instanceStatus(ctx.domain, input.domain),
});

export const pingInstanceOperation = directoryOperation({
  name: 'ping_instance',
  title: 'Ping: the inbox is alive',
  description:
    'An inbox pings hourly; one that pinged within the last day answers. 204 on success. Only a verified instance may ping (409 wrong_state before). Each count is the items of that kind the inbox received in the last 24 hours, counted at most 10000 per kind per instance in /v1/stats.',
  audience: 'public',
  kind: 'write',
  http: { method: 'POST', path: '/v1/instances/{domain}/ping', successStatus: 204 },
  input: z.object({
    domain: z.string().max(253),
    version: z.string().max(40).optional(),
    runtime: z.string().max(40).optional(),
    counts: z.object({ bookings: z.number().int().min(0), orders: z.number().int().min(0), quotes: z.number().int().min(0), messages: z.number().int().min(0) }).partial().optional(),
    manifest_sha256: z.string().max(64).optional(),
  }),
  output: z.null(),
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false },
  errors: ['bad_request', 'not_found', 'wrong_state'],
  run: async (ctx, input) => {
    await pingInstance(ctx.domain, input.domain, { version: input.version, runtime: input.runtime, counts: input.counts });
    return null;
  },
});
