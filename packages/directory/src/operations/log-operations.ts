/**
 * The evidence log and the hours' statements (docs/verifiable-order.md): the network's key, entries,
 * inclusion and consistency proofs, each hour's signed statement, its leaves and a place's proof.
 * The log's signed head (text) and its tiles (bytes) are served beside these (doors/rest/log-routes.ts).
 * None is an MCP tool: they are byte-exact material for programs that check them (the verifier), and an
 * agent that wants its answers checked runs the verifier rather than reading hashes through a tool.
 */
import { Problem } from '@svc/shared';
import { z } from 'zod';
import { HOUR_MS } from '../domain/ranking/hourly-order.js';
import { READ, directoryOperation } from './context.js';

const b64 = (b: Buffer) => b.toString('base64');
/** Immutable answers (a proof or statement of given sizes and hours never changes). */
const IMMUTABLE = { 'cache-control': 'public, max-age=31536000, immutable' };
const MAX_LEAVES = 10_000;

const hash = z.string().describe('A SHA-256 hash, base64.');

function badField(path: string, message: string): Problem {
  return new Problem('bad_request', message, { fields: [{ path, problem: 'invalid', message }] });
}

/** `2026-11-28T13` or an ISO instant at the start of an hour (UTC); else 400. */
export function parseHour(raw: string): number {
  const text = /^\d{4}-\d{2}-\d{2}T\d{2}$/.test(raw) ? `${raw}:00:00Z` : raw;
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}(:00(:00(\.000)?)?)?Z?$/.test(text) ? Date.parse(text.endsWith('Z') ? text : `${text}Z`) : Number.NaN;
  if (Number.isNaN(ms) || ms % HOUR_MS !== 0) throw badField('hour', 'hour is the start of an hour in UTC, written YYYY-MM-DDTHH (such as 2026-11-28T13).');
  return ms;
}

async function logSize(ctx: { domain: { store: { evidence: { size(): Promise<number> } } } }): Promise<number> {
  return ctx.domain.store.evidence.size();
}

export const getLogKey = directoryOperation({
  name: 'get_log_key',
  title: 'The network\'s signing key',
  description:
    'The Ed25519 key that signs the evidence log\'s heads and each hour\'s statement (C2SP signed notes): its note verifier key (name+keyid+key), and the same key as a JWK Set.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/log/key' },
  input: z.object({}),
  output: z.object({
    name: z.string().describe('The key\'s name in signed notes: the log\'s origin.'),
    vkey: z.string().describe('The note verifier key: <name>+<key ID, hex>+<base64 of 0x01 and the 32-byte public key>.'),
    algorithm: z.literal('Ed25519'),
    log_origin: z.string(),
    statement_origin: z.string(),
    keys: z.object({ keys: z.array(z.object({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string(), kid: z.string(), use: z.literal('sig'), alg: z.literal('EdDSA') })) }),
  }),
  answers: { etag: true },
  annotations: READ,
  cacheMaxAgeSec: 3_600,
  errors: ['bad_request'],
  run: async (ctx) => {
    const key = ctx.order.key;
    return { name: key.name, vkey: key.vkey, algorithm: 'Ed25519' as const, log_origin: key.name, statement_origin: key.name.replace(/\/v1\/log$/, '/v1/orders'), keys: { keys: [key.publicJwk] } };
  },
});

export const getLogEntry = directoryOperation({
  name: 'get_log_entry',
  title: 'One entry of the evidence log',
  description: 'The entry at an index (from 0): its bytes exactly as hashed, its time and its leaf hash (SHA-256 of 0x00 and the bytes).',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/log/entries/{index}' },
  input: z.object({ index: z.string().regex(/^(0|[1-9][0-9]{0,15})$/, 'a whole number from 0').describe('From 0.') }),
  output: z.object({ index: z.number().int(), at: z.string().describe('When it reached the network.'), kind: z.string(), entry: z.string().describe('The entry\'s bytes (JSON), exactly as hashed.'), leaf_hash: hash }),
  answers: { etag: true },
  annotations: READ,
  cacheMaxAgeSec: 31_536_000,
  errors: ['bad_request', 'not_found'],
  run: async (ctx, input, extras) => {
    const index = Number(input.index);
    const [row] = await ctx.domain.store.evidence.entries(index, index + 1);
    if (!row) throw new Problem('not_found', `The log has ${await logSize(ctx)} entries; there is no entry ${index}.`);
    extras.headers = IMMUTABLE;
    return { index: row.index, at: new Date(row.at).toISOString(), kind: row.kind, entry: row.entry, leaf_hash: b64(row.leafHash) };
  },
});

export const findLogEntries = directoryOperation({
  name: 'find_log_entries',
  title: 'Where a receipt is in the evidence log',
  description:
    'The entries of one receipt (by its issuer and id) and of its acknowledgement, when logged: what an inbox asks to check that each receipt it published is in the log (then it asks for an inclusion proof). 404 when the log has no such receipt.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/log/lookup' },
  input: z.object({
    iss: z.string().url().max(300).describe('The receipt\'s issuer, the inbox\'s origin.'),
    receipt_id: z.string().regex(/^[0-9a-f]{32}$/).describe('The receipt\'s id (its nonce).'),
  }),
  output: z.object({
    receipt: z.object({ index: z.number().int(), at: z.string(), leaf_hash: hash, entry: z.string() }),
    acknowledgement: z.object({ index: z.number().int(), at: z.string(), leaf_hash: hash, entry: z.string() }).nullable(),
  }),
  answers: { etag: true },
  annotations: READ,
  errors: ['bad_request', 'not_found'],
  run: async (ctx, input) => {
    const domain = new URL(input.iss).host;
    const receipt = await ctx.domain.store.evidence.byRef(`r ${domain} ${input.receipt_id}`);
    if (!receipt) throw new Problem('not_found', `The evidence log holds no receipt ${input.receipt_id} of ${input.iss}.`);
    const ack = await ctx.domain.store.evidence.byRef(`a ${domain} ${input.receipt_id}`);
    const view = (r: typeof receipt) => ({ index: r.index, at: new Date(r.at).toISOString(), leaf_hash: b64(r.leafHash), entry: r.entry });
    return { receipt: view(receipt), acknowledgement: ack ? view(ack) : null };
  },
});

export const proveLogInclusion = directoryOperation({
  name: 'prove_log_inclusion',
  title: 'Inclusion proof in the evidence log',
  description:
    'The audit path (RFC 9162 §2.1.3) of the entry at `index` in the log\'s first `size` entries, lowest level first, each hash base64. `size` is that of a signed head (GET /v1/log/checkpoint). 400 when index is not below size; 404 when the log is not that large.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/log/proof/inclusion' },
  input: z.object({ index: z.number().int().min(0), size: z.number().int().min(1) }),
  output: z.object({ index: z.number().int(), size: z.number().int(), leaf_hash: hash, proof: z.array(hash) }),
  answers: { etag: true },
  annotations: READ,
  cacheMaxAgeSec: 31_536_000,
  errors: ['bad_request', 'not_found'],
  run: async (ctx, input, extras) => {
    if (input.index >= input.size) throw badField('index', `index ${input.index} is not in a tree of ${input.size} entries (index is below size).`);
    const size = await logSize(ctx);
    if (input.size > size) throw new Problem('not_found', `The log has ${size} entries; no head of ${input.size} exists.`);
    const [row] = await ctx.domain.store.evidence.entries(input.index, input.index + 1);
    const proof = await ctx.order.tree.inclusion(input.index, input.size);
    extras.headers = IMMUTABLE;
    return { index: input.index, size: input.size, leaf_hash: b64((row as { leafHash: Buffer }).leafHash), proof: proof.map(b64) };
  },
});

export const proveLogConsistency = directoryOperation({
  name: 'prove_log_consistency',
  title: 'Consistency proof between two heads of the evidence log',
  description:
    'The proof (RFC 9162 §2.1.4) that the log\'s first `to` entries extend its first `from`: what shows a later head did not rewrite an earlier one. 400 when from is above to; 404 when the log is not `to` entries large.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/log/proof/consistency' },
  input: z.object({ from: z.number().int().min(1), to: z.number().int().min(1) }),
  output: z.object({ from: z.number().int(), to: z.number().int(), proof: z.array(hash) }),
  answers: { etag: true },
  annotations: READ,
  cacheMaxAgeSec: 31_536_000,
  errors: ['bad_request', 'not_found'],
  run: async (ctx, input, extras) => {
    if (input.from > input.to) throw badField('from', `from (${input.from}) is at most to (${input.to}).`);
    const size = await logSize(ctx);
    if (input.to > size) throw new Problem('not_found', `The log has ${size} entries; no head of ${input.to} exists.`);
    extras.headers = IMMUTABLE;
    return { from: input.from, to: input.to, proof: (await ctx.order.tree.consistency(input.from, input.to)).map(b64) };
  },
});

const hourInput = z.object({ hour: z.string().min(1).max(40).describe('The hour, YYYY-MM-DDTHH in UTC (such as 2026-11-28T13).') });

async function statementOf(ctx: Parameters<typeof getLogKey.run>[0], raw: string) {
  const hour = parseHour(raw);
  const statement = await ctx.order.statements.get(hour);
  if (!statement) {
    const now = ctx.domain.clock.now();
    throw new Problem('not_found', hour > now ? `The hour ${raw} has not come yet.` : `No statement was made for the hour ${raw} (its order was not computed here, or before statements existed).`);
  }
  return statement;
}

export const getOrderStatement = directoryOperation({
  name: 'get_order_statement',
  title: 'The hour\'s signed statement',
  description:
    'What the hour\'s order was made from and what it came to, signed by the network\'s key (a C2SP signed note): the rules version, the shuffle\'s day, the night whose reputation it read with the evidence log\'s head that night was scored from, the log\'s sizes while it read the listings (their checks), and the Merkle root of one leaf per place. Kept at least 30 days; never changes once made.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/orders/{hour}' },
  input: hourInput,
  output: z.object({
    hour: z.string(),
    rules: z.number().int().min(1),
    shuffle_day: z.string(),
    night: z.string().nullable().describe('The scoring time of the reputation the order read; null when no night was scored yet.'),
    log: z.object({ size: z.number().int().min(0), root: hash }),
    checks: z
      .object({ from: z.number().int().min(0), to: z.number().int().min(0) })
      .nullable()
      .describe('The evidence log\'s size before and after the order read its listings: what it read of each checked listing is the site\'s newest check entry below one of those sizes. Null for statements made before check results were logged.'),
    order: z.object({ size: z.number().int().min(0), root: hash }),
    note: z.string().describe('The statement as a signed note: its text and the network\'s signature line.'),
  }),
  answers: { etag: true },
  annotations: READ,
  cacheMaxAgeSec: 31_536_000,
  errors: ['bad_request', 'not_found'],
  run: async (ctx, input, extras) => {
    const s = await statementOf(ctx, input.hour);
    extras.headers = IMMUTABLE;
    return {
      hour: new Date(s.hourStart).toISOString(),
      rules: s.rulesVersion,
      shuffle_day: s.shuffleDay,
      night: s.night === null ? null : new Date(s.night).toISOString(),
      log: { size: s.logSize, root: b64(s.logRoot) },
      checks: s.checks,
      order: { size: s.orderSize, root: b64(s.orderRoot) },
      note: s.note,
    };
  },
});

export const listOrderLeaves = directoryOperation({
  name: 'list_order_leaves',
  title: 'Leaves of the hour\'s order',
  description: `The leaves of the hour's order from place start + 1, at most ${MAX_LEAVES} a call: one line per place naming the listing and what the rules sort by (docs/verifiable-order.md). Kept 48 hours (the statement itself longer).`,
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/orders/{hour}/leaves' },
  input: hourInput.extend({ start: z.number().int().min(0).default(0), count: z.number().int().min(1).max(MAX_LEAVES).default(1_000) }),
  output: z.object({ hour: z.string(), start: z.number().int(), size: z.number().int(), leaves: z.array(z.string()) }),
  answers: { etag: true },
  annotations: READ,
  cacheMaxAgeSec: 31_536_000,
  errors: ['bad_request', 'not_found'],
  run: async (ctx, input, extras) => {
    const s = await statementOf(ctx, input.hour);
    if (input.start > s.orderSize) throw badField('start', `The hour's order has ${s.orderSize} places; start is at most that.`);
    const leaves = await ctx.order.statements.leaves(s.hourStart, input.start, input.count);
    if (!leaves) throw new Problem('not_found', `The leaves of ${input.hour} are no longer kept (48 hours); its statement is.`);
    extras.headers = IMMUTABLE;
    return { hour: new Date(s.hourStart).toISOString(), start: input.start, size: s.orderSize, leaves };
  },
});

export const proveOrderPlace = directoryOperation({
  name: 'prove_order_place',
  title: 'Proof of a place in the hour\'s order',
  description: 'The leaf at a place (from 1) and its inclusion proof (RFC 9162) under the order root of the hour\'s statement. 400 for a place beyond the order; 404 once the leaves are no longer kept.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/orders/{hour}/proof' },
  input: hourInput.extend({ position: z.number().int().min(1) }),
  output: z.object({ hour: z.string(), position: z.number().int(), size: z.number().int(), leaf: z.string(), proof: z.array(hash) }),
  answers: { etag: true },
  annotations: READ,
  cacheMaxAgeSec: 31_536_000,
  errors: ['bad_request', 'not_found'],
  run: async (ctx, input, extras) => {
    const s = await statementOf(ctx, input.hour);
    if (input.position > s.orderSize) throw badField('position', `The hour's order has ${s.orderSize} places.`);
    const proved = await ctx.order.statements.proof(s.hourStart, input.position);
    if (!proved) throw new Problem('not_found', `The leaves of ${input.hour} are no longer kept (48 hours); its statement is.`);
    extras.headers = IMMUTABLE;
    return { hour: new Date(s.hourStart).toISOString(), position: input.position, size: proved.size, leaf: proved.leaf, proof: proved.proof.map(b64) };
  },
});

/** Operations kept off the MCP door (REST only; see the header). */
export const LOG_OPERATIONS = [getLogKey, getLogEntry, findLogEntries, proveLogInclusion, proveLogConsistency, getOrderStatement, listOrderLeaves, proveOrderPlace] as const;
