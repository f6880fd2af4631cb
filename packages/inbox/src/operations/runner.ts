/**
 * Runs one operation call for any door: authenticates the caller, limits integration keys' rate,
 * checks (or records) the scope an owner operation needs, applies idempotency to writes, and runs
 * the handler inside one store transaction so the item, its events, its jobs and the stored answer
 * commit together (two concurrent calls with one key therefore make one item). A key belongs to its
 * caller's scope (idempotency-scope.ts): the business, an integration key, an AI app, or a customer
 * at one door. Stored answers are sealed: access tokens and keys in them never sit in the database in clear.
 */
import { Problem, canonicalJson, rateLimitHeaders, rateLimitedHeaders, sha256Hex, type AnyOperation, type OperationOutcome, type ResponseExtras } from '@svc/shared';
import { authenticateBearer } from '../domain/access/api-keys.js';
import { KeyRateLimiter, type RateStanding } from '../domain/access/rate-limiter.js';
import { checkScope } from '../domain/access/scope-check.js';
import type { ReceiptSigning } from '../domain/receipts/signing-keys.js';
import type { SecretBox } from '../domain/secrets/secret-box.js';
import type { Caller, Channel, Clock, SignedAgent } from '../domain/types.js';
import type { InboxStore } from '../store/store.js';
import type { IdentityServices, InboxConfigView, OperationContext } from './context.js';
import { CommittedRefusal } from '../domain/identity/committed-refusal.js';
import { presentPasses } from '../networks/present-passes.js';
import type { NetworkSigner } from '../networks/person-client.js';
import { refuseUnsafeText } from './input-text.js';
import { isAnswerSecret } from './secret-answers.js';
import { KeptAnswers } from './kept-answers.js';
import { idempotencyScope } from './idempotency-scope.js';

/** Idempotency keys are kept 30 days (inbox spec §8). */
export const IDEMPOTENCY_KEEP_MS = 30 * 86_400_000;
/** SecretBox purpose of stored answers; the row's scope key is bound with it. */
const STORED_ANSWER_PURPOSE = 'idempotency.answer';

export interface RunnerDeps {
  store: InboxStore;
  clock: Clock;
  config: InboxConfigView;
  validateOutput: boolean;
  secrets: SecretBox;
  /** Signs the receipts moves make due (docs/receipts.md). */
  receipts: ReceiptSigning;
  /** Keyed hashes of customer data and the mail domain (docs/identity.md). */
  identity: IdentityServices;
  /** Signs this instance's calls to networks (passes); null when it cannot sign. */
  networkSigner?: () => Promise<NetworkSigner | null>;
  /** Integration keys' buckets; one per process. Made from `clock` on first use when not given. */
  keyRateLimiter?: KeyRateLimiter;
  /** Public reads kept in memory; made on first use when not given. */
  keptAnswers?: KeptAnswers;
}

/** What a door extracted from its transport besides the input. */
export interface CallEnvelope {
  channel: Channel;
  authorization: string | undefined;
  idempotencyKeyHeader: string | undefined;
  accessTokenHeader: string | undefined;
  /** The agent whose request signature verified (svc-agent/1), on public calls. */
  agent?: SignedAgent | undefined;
  /** The Svc-Pass header as sent (a person's passes), on public calls. */
  svcPass?: string | undefined;
  /** The client's address (Fastify's request.ip), on public calls: an anonymous customer's idempotency scope. */
  clientAddress?: string | undefined;
}

/** Who is calling, and where an integration key stands in its rate budget: decided before the input is read. */
export interface Admission {
  caller: Caller;
  standing: RateStanding | undefined;
}

/**
 * Authenticates the caller, limits an integration key's rate and checks (or records) the scope an
 * owner operation needs. Doors call it before they validate the input (issue 19): a call outside
 * the caller's scopes is refused as such, never told first what its body lacks.
 */
export async function admitCall(deps: RunnerDeps, op: AnyOperation<OperationContext>, envelope: CallEnvelope): Promise<Admission> {
  const caller = await resolveCaller(deps, op, envelope);
  let standing: RateStanding | undefined;
  if (op.audience === 'owner') {
    standing = limitRate(deps, caller);
    await checkScope({ store: deps.store, clock: deps.clock }, caller, op.name, op.scope);
  }
  return { caller, standing };
}

export async function runOperation(
  deps: RunnerDeps,
  op: AnyOperation<OperationContext>,
  input: Record<string, unknown>,
  envelope: CallEnvelope,
  admitted?: Admission,
): Promise<OperationOutcome> {
  const { caller, standing } = admitted ?? (await admitCall(deps, op, envelope));
  // Control and text-direction characters are refused in every text of every input, before anything runs.
  refuseUnsafeText(input);
  // A person's passes are presented to their networks before the call's transaction, never inside it (docs/identity.md).
  let runAsCaller = caller;
  if (caller.kind === 'customer') {
    const identity = await presentPasses(
      { store: deps.store, signer: deps.networkSigner ?? (async () => null) },
      { pass: input.pass, key: input.key, header: envelope.svcPass },
      caller.agent,
    );
    runAsCaller = { ...caller, identity };
  }
  const outcome = await runAs(deps, op, input, envelope, runAsCaller);
  // A limited caller learns where it stands on every answer (RateLimit headers, docs/http.md).
  return standing ? { ...outcome, headers: { ...outcome.headers, ...rateLimitHeaders({ policy: RATE_POLICY, ...standing }) } } : outcome;
}

async function runAs(
  deps: RunnerDeps,
  op: AnyOperation<OperationContext>,
  input: Record<string, unknown>,
  envelope: CallEnvelope,
  caller: Caller,
): Promise<OperationOutcome> {
  const extras: ResponseExtras = {};
  const successStatus = op.http.successStatus ?? 200;

  const execute = async (store: InboxStore): Promise<unknown> => {
    const ctx: OperationContext = {
      domain: { store, clock: deps.clock, receipts: deps.receipts, keys: deps.identity.keys },
      caller,
      accessTokenHeader: envelope.accessTokenHeader,
      config: deps.config,
      secrets: deps.secrets,
      keptAnswers: keptAnswersOf(deps),
      identity: deps.identity,
    };
    const body = await op.run(ctx, input, extras);
    if (deps.validateOutput) {
      const checked = op.output.safeParse(body);
      if (!checked.success) throw new Error(`${op.name} answered outside its output schema: ${checked.error.message}`);
    }
    return body;
  };

  if (op.kind === 'read') {
    const body = await execute(deps.store);
    return { status: extras.status ?? successStatus, body, headers: extras.headers ?? {}, ...(extras.serialized ? { serialized: extras.serialized } : {}) };
  }

  const key = idempotencyKeyOf(envelope, input);
  // A signed change is taken once: the same signature again is a retry only from the same agent with the same idempotency key.
  const takeSignature = async (tx: InboxStore): Promise<void> => {
    if (caller.kind !== 'customer' || !caller.agent) return;
    const agent = caller.agent;
    const nowMs = deps.clock.now();
    const use = await tx.identity.useSignature({ signatureId: agent.signatureId, jkt: agent.jkt, idempotencyKey: key ?? null, keepUntilMs: agent.keepUntilMs }, nowMs);
    if (use === 'replayed') {
      throw new Problem('replayed_signature', 'This signature was already used for a change; sign each request anew (a retry keeps the same idempotency key).');
    }
    await tx.identity.seeAgent({ jkt: agent.jkt, platform: agent.platform, publicJwk: agent.publicJwk }, nowMs);
  };
  // A refusal whose writes must stand (a wrong code's spent attempt) commits, then answers with its problem.
  const keepingRefusals = async (tx: InboxStore): Promise<unknown> => {
    try {
      return await execute(tx);
    } catch (error) {
      if (error instanceof CommittedRefusal) return new RefusalAfterCommit(error);
      throw error;
    }
  };
  if (key === undefined) {
    const body = await deps.store.batchedTransaction(async (tx) => {
      await takeSignature(tx);
      return keepingRefusals(tx);
    });
    if (body instanceof RefusalAfterCommit) throw body.refusal;
    return { status: extras.status ?? successStatus, body, headers: extras.headers ?? {} };
  }

  const { idempotency_key: _ignored, access_token: bodyToken, ...fields } = input;
  // The item token (header or body) is part of the request, so a replay never answers a caller without it.
  const accessToken = envelope.accessTokenHeader ?? bodyToken;
  const request = accessToken === undefined ? fields : { ...fields, access_token: sha256Hex(String(accessToken)) };
  const requestHash = sha256Hex(canonicalJson({ operation: op.name, request }));
  // One key names one request in its scope: the same key on another operation is a different request.
  const scope = idempotencyScope(deps.identity.keys, {
    caller,
    channel: envelope.channel,
    clientAddress: envelope.clientAddress,
    passes: { pass: input.pass, key: input.key, header: envelope.svcPass },
  });
  const scopeKey = `${scope}|${key}`;
  const outcome = await deps.store.batchedTransaction(async (tx) => {
    await takeSignature(tx);
    const nowMs = deps.clock.now();
    const stored = await tx.idempotency.find(scopeKey, nowMs);
    if (stored) {
      if (stored.requestHash !== requestHash) {
        throw new Problem('idempotency_mismatch', 'This idempotency key was used with a different request; use a new key for a new request.', {
          fields: [{ path: 'idempotency_key', problem: 'invalid', message: 'Already used with a different request.' }],
        });
      }
      const replay = openStoredAnswer(deps.secrets, scopeKey, stored.response, principalOf(caller));
      return { status: 200, body: replay.body, headers: { ...replay.headers, 'idempotent-replayed': 'true' } };
    }
    const body = await keepingRefusals(tx);
    // Not kept under the key: the same call again is judged again.
    if (body instanceof RefusalAfterCommit) return body;
    const headers = extras.headers ?? {};
    const status = extras.status ?? successStatus;
    // Serialised once: the stored answer holds these bytes, and the door sends them.
    const json = JSON.stringify(body);
    const responseJson = sealStoredAnswer(deps.secrets, scopeKey, json, headers, isAnswerSecret(extras) ? principalOf(caller) : null);
    await tx.idempotency.save(scopeKey, { requestHash, status, responseJson }, nowMs, IDEMPOTENCY_KEEP_MS);
    return { status, body, headers, json };
  });
  if (outcome instanceof RefusalAfterCommit) throw outcome.refusal;
  return outcome;
}

class RefusalAfterCommit {
  constructor(readonly refusal: CommittedRefusal) {}
}

function idempotencyKeyOf(envelope: CallEnvelope, input: Record<string, unknown>): string | undefined {
  const header = envelope.idempotencyKeyHeader;
  const body = typeof input.idempotency_key === 'string' ? input.idempotency_key : undefined;
  if (header !== undefined && (header.length === 0 || header.length > 200)) {
    throw new Problem('invalid_input', 'The Idempotency-Key header must be 1 to 200 characters.', {
      fields: [{ path: 'Idempotency-Key', problem: 'invalid', message: 'Must be 1 to 200 characters.' }],
    });
  }
  if (header !== undefined && body !== undefined && header !== body) {
    throw new Problem('invalid_input', 'The Idempotency-Key header and idempotency_key differ; send one.', {
      fields: [{ path: 'idempotency_key', problem: 'invalid', message: 'Differs from the Idempotency-Key header.' }],
    });
  }
  return header ?? body;
}

/** The principal a call is made by: an owner-side key or grant; a customer is its scope already. */
function principalOf(caller: Caller): string | null {
  return caller.kind === 'owner' ? (caller.keyId ?? caller.actor.id) : null;
}

interface Answer {
  body: unknown;
  headers: Record<string, string>;
}

/** What the idempotency row holds: the answer sealed, and who may see it again when it shows a secret. */
interface SealedAnswer {
  sealed: string;
  /** Set when the answer shows a secret: only this principal gets it replayed. */
  secretFor: string | null;
}

/**
 * Seals `{ body, headers }` (the body given as its JSON text) and gives the idempotency row's
 * SealedAnswer as JSON text. The sealed value is base64url and dots, nothing JSON escapes, so it is
 * written as it is (JSON.stringify would read its thousand characters one by one).
 */
function sealStoredAnswer(secrets: SecretBox, scopeKey: string, bodyJson: string, headers: Record<string, string>, secretFor: string | null): string {
  const sealed = secrets.seal(`{"body":${bodyJson},"headers":${JSON.stringify(headers)}}`, STORED_ANSWER_PURPOSE, scopeKey);
  return `{"sealed":"${sealed}","secretFor":${secretFor === null ? 'null' : JSON.stringify(secretFor)}}`;
}

function openStoredAnswer(secrets: SecretBox, scopeKey: string, response: unknown, principal: string | null): Answer {
  const stored = response as Partial<SealedAnswer> & Partial<Answer>;
  // Rows written before answers were sealed hold the answer itself.
  if (typeof stored.sealed !== 'string') return { body: stored.body, headers: stored.headers ?? {} };
  if (stored.secretFor !== null && stored.secretFor !== undefined && stored.secretFor !== principal) {
    throw new Problem('idempotency_mismatch', 'This idempotency key was used by another key, and its answer shows a secret only to that key; use a new idempotency key.', {
      fields: [{ path: 'idempotency_key', problem: 'invalid', message: 'Already used by another key.' }],
    });
  }
  return JSON.parse(secrets.open(stored.sealed, STORED_ANSWER_PURPOSE, scopeKey)) as Answer;
}

const defaultLimiters = new WeakMap<RunnerDeps, KeyRateLimiter>();
const defaultKeptAnswers = new WeakMap<RunnerDeps, KeptAnswers>();

function keptAnswersOf(deps: RunnerDeps): KeptAnswers {
  let kept = deps.keptAnswers ?? defaultKeptAnswers.get(deps);
  if (!kept) {
    kept = new KeptAnswers();
    defaultKeptAnswers.set(deps, kept);
  }
  return kept;
}

/** The RateLimit policy name of integration keys' buckets. */
const RATE_POLICY = 'key';

/** About ten calls a second per integration key (inbox spec §8); the owner and the owner's AI are not limited. */
function limitRate(deps: RunnerDeps, caller: Caller): RateStanding | undefined {
  if (caller.kind !== 'owner' || caller.actor.kind !== 'integration' || caller.keyId === null) return undefined;
  let limiter = deps.keyRateLimiter ?? defaultLimiters.get(deps);
  if (!limiter) {
    limiter = new KeyRateLimiter(deps.clock);
    defaultLimiters.set(deps, limiter);
  }
  const decision = limiter.take(caller.keyId);
  if (!decision.allowed) {
    throw new Problem('rate_limited', `This key made more than about ten calls a second; wait ${decision.retryAfterSec} s and retry.`, {
      headers: rateLimitedHeaders({ policy: RATE_POLICY, ...decision.standing }, decision.retryAfterSec),
      extensions: { retryAfter: decision.retryAfterSec },
    });
  }
  return decision.standing;
}

async function resolveCaller(deps: RunnerDeps, op: AnyOperation<OperationContext>, envelope: CallEnvelope): Promise<Caller> {
  if (op.audience === 'owner') return authenticateBearer(deps.store, envelope.authorization, envelope.channel, deps.clock.now());
  if (op.audience === 'system') return { kind: 'system', actor: { kind: 'system', id: null, name: 'inbox' }, channel: envelope.channel };
  return { kind: 'customer', actor: { kind: 'customer_agent', id: null, name: null }, channel: envelope.channel, agent: envelope.agent };
}
