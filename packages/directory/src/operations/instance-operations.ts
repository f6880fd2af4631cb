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
  description:
    'Queues verification of the inbox at https://<domain>: its /.well-known/agent-inbox.json is fetched and checked; poll the status URL. Signed by the inbox itself (HTTP Message Signatures, profile svc-instance/1, a key of its manifest\'s receipt_keys, Svc-Instance https://<domain>): unsigned or badly signed 401, signed by another instance 403.',
  audience: 'public',
  kind: 'write',
  http: { method: 'POST', path: '/v1/instances', successStatus: 202 },
  input: z.object({ domain: z.string().max(300).describe('Host name of the inbox, such as salon.example.') }),
  output: z.object({ domain: z.string(), status: z.string(), status_url: z.string(), manifest_url: z.string(), message: z.string() }),
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false },
  errors: ['bad_request', 'unauthorized', 'replayed_signature', 'not_allowed'],
  run: (ctx, input) => registerInstance(ctx.domain, input.domain, ctx.caller),
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
    'An inbox pings hourly; one that pinged within the last day answers. Signed by the instance itself (svc-instance/1): an unsigned ping is 401 and changes nothing; one signed by another instance 403. Only a verified instance may ping (409 wrong_state before). Each count is the items of that kind the inbox received in the last 24 hours, counted at most 10000 per kind per instance in /v1/stats. The answer says how the network stands with the inbox: its reputation as of the last nightly snapshot, the receipts held from it, and the ranking rules in force.',
  audience: 'public',
  kind: 'write',
  http: { method: 'POST', path: '/v1/instances/{domain}/ping' },
  input: z.object({
    domain: z.string().max(253),
    version: z.string().max(40).optional(),
    runtime: z.string().max(40).optional(),
    counts: z.object({ bookings: z.number().int().min(0), orders: z.number().int().min(0), quotes: z.number().int().min(0), messages: z.number().int().min(0) }).partial().optional(),
    manifest_sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/)
      .optional()
      .describe('SHA-256 (hex) of the canonical JSON of the manifest the inbox publishes now; another than the one the directory holds makes it read the manifest again, at most once a minute.'),
  }),
  output: z.object({
    ok: z.literal(true),
    standing: z.object({
      tier: z.enum(['new', 'building', 'trusted']),
      score: z.number().min(0).max(1),
      ranked: z.boolean(),
      kept: z.number().int().min(0),
      broken: z.number().int().min(0),
      customers: z.number().int().min(0),
      as_of: z.string().nullable().describe('The scoring time of the snapshot the standing comes from (midnight UTC); null before the first that scored this inbox.'),
    }),
    receipts: z.object({ accepted: z.number().int().min(0), acknowledged: z.number().int().min(0) }).describe('Every receipt the network holds from this inbox (sandbox ones too), and how many of them carry an acknowledgement.'),
    rules: z.number().int().min(1).describe('The ranking rules version in force.'),
    manifest: z
      .object({
        current: z.boolean().describe('Whether the directory holds the manifest the ping named (true when it named none).'),
        read_at: z.string().nullable().describe('When the directory last read the manifest, when that read succeeded.'),
        read_after: z.string().nullable().describe('While it holds another: when it reads the manifest again.'),
      })
      .describe('What the directory holds of the inbox\'s manifest: a change the inbox publishes is read again within a minute or two.'),
  }),
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false },
  errors: ['bad_request', 'unauthorized', 'replayed_signature', 'not_allowed', 'not_found', 'wrong_state'],
  run: (ctx, input) => pingInstance(ctx.domain, input.domain, ctx.caller, { version: input.version, runtime: input.runtime, counts: input.counts, manifestSha256: input.manifest_sha256 }),
});
