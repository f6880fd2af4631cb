/**
 * Budgets for bursts (docs/security.md): each request a service classifies is counted against one
 * named budget, per client address (IPv6 by /64) or per credential, in fixed windows kept by
 * @fastify/rate-limit's local store. A caller under a budget is told where it stands on every answer
 * (RateLimit and RateLimit-Policy, rate-limit-headers.ts); a caller over it gets 429 rate_limited
 * with Retry-After, before the request does any work.
 *
 * One setting per service scales every budget (INBOX_RATE_LIMIT, DIRECTORY_RATE_LIMIT): 2 doubles
 * them, 0 turns limits off (benchmarks and load tests).
 */
import { SettingError } from '../errors/setting-error.js';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import fastifyRateLimit from '@fastify/rate-limit';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Problem } from '../errors/problem.js';
import { rateLimitedHeaders, rateLimitHeaders } from './rate-limit-headers.js';

export interface RateBudget {
  /** The policy's name in RateLimit headers and in keys: `create`, `read`, `codes`, `owner`… */
  name: string;
  /** Requests allowed per window at scale 1. */
  max: number;
  windowSec: number;
  /**
   * What a caller is: its address (anonymous callers), the credential it presents, or the key a
   * request was verifiably signed with (`signer`, through `signerKeyOf`; a request with none skips it).
   */
  per: 'address' | 'credential' | 'signer';
  /** Says what the budget is for, in the refusal's detail. */
  describes: string;
}

export interface RateLimitOptions {
  /** Multiplies every budget's `max`; 0 turns limits off. */
  scale: number;
  /** The budget a request counts against (several: each must hold), or undefined for none (health checks, preflights). */
  budgetOf: (request: FastifyRequest) => RateBudget | readonly RateBudget[] | undefined;
  /** The key a request was verifiably signed with (e.g. an agent's key thumbprint), for `signer` budgets. */
  signerKeyOf?: (request: FastifyRequest) => string | undefined;
}

/** How many client keys each budget remembers (least recently seen forgotten first). */
const REMEMBERED_CALLERS = 50_000;

/** A rate-limit scale from a setting: a non-negative number, 1 when absent. */
export function rateLimitScale(value: string | undefined, name: string): number {
  if (value === undefined || value.trim() === '') return 1;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new SettingError(`${name} must be a number of at least 0 (0 turns limits off), not ${value}`);
  return parsed;
}

/** The client's address, IPv6 addresses grouped by /64 (one host usually holds a whole /64). */
export function clientKey(request: FastifyRequest): string {
  return fastifyRateLimit.normalizeIP(request.ip, 64);
}

/** The credential a request presents (Authorization), hashed: a key never sits in memory as a map key. */
function credentialKey(request: FastifyRequest): string {
  const authorization = request.headers.authorization;
  if (typeof authorization !== 'string' || authorization === '') return `anonymous ${clientKey(request)}`;
  return createHash('sha1').update(authorization).digest('base64url');
}

/**
 * The library's own fixed-window store, called directly: its `incr` answers through its callback
 * before returning, so a request is counted without the promise hops of `createRateLimit` (four
 * awaits per budget, a tenth of a small read's time).
 */
interface WindowCount {
  current: number;
  ttl: number;
}
interface FixedWindowStore {
  incr(key: string, done: (error: Error | null, count: WindowCount) => void, timeWindowMs: number, max: number): void;
}
const require = createRequire(import.meta.url);
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, cache: number) => FixedWindowStore;

function countSync(store: FixedWindowStore, key: string, windowMs: number, max: number): WindowCount {
  let counted: WindowCount | undefined;
  store.incr(key, (error, count) => {
    if (error) throw error;
    counted = count;
  }, windowMs, max);
  if (!counted) throw new Error('the rate-limit store did not count synchronously');
  return counted;
}

/** What counting a request against its budgets decided: refused by one, or the headers its first budget shows. */
export type BudgetCharge = { refusal: Problem; headers?: undefined } | { refusal: null; headers: Record<string, string> | null };

/** Every budget's window counts, per caller, in this process. */
export class BurstLimits {
  readonly #scale: number;
  /** Per budget: its store, its quota and its constant RateLimit-Policy. */
  readonly #limiters = new Map<RateBudget, { store: FixedWindowStore; policy: string; quota: number }>();

  constructor(scale: number) {
    this.#scale = scale;
  }

  /** Counts one request against each budget in turn (`keyOf` names the caller for it); the first over its quota refuses. */
  charge(budgets: readonly RateBudget[], keyOf: (budget: RateBudget) => string): BudgetCharge {
    let headers: Record<string, string> | null = null;
    for (const budget of budgets) {
      const limiter = this.#limiterFor(budget);
      const count = countSync(limiter.store, keyOf(budget), budget.windowSec * 1000, limiter.quota);
      const resetSec = Math.ceil(count.ttl / 1000);
      if (count.current > limiter.quota) {
        const state = { policy: budget.name, quota: limiter.quota, windowSec: budget.windowSec, resetSec };
        const retryAfter = Math.max(1, resetSec);
        const who = budget.per === 'address' ? 'this address' : budget.per === 'signer' ? 'this signing key' : 'this key';
        return {
          refusal: new Problem('rate_limited', `Too many ${budget.describes} from ${who}; wait ${retryAfter} s and retry.`, {
            headers: rateLimitedHeaders(state, retryAfter),
            extensions: { retryAfter },
          }),
        };
      }
      // The first budget is the one a caller is told about on every answer.
      headers ??= { 'ratelimit-policy': limiter.policy, ratelimit: `"${budget.name}";r=${limiter.quota - count.current};t=${resetSec}` };
    }
    return { refusal: null, headers };
  }

  /**
   * Counts a request that presents no credential and no signature (answer-replay.ts) against
   * `budgets`, as the framework's hook would: by its peer's address.
   */
  chargeAnonymous(peerAddress: string, budgets: readonly RateBudget[]): BudgetCharge {
    const address = fastifyRateLimit.normalizeIP(peerAddress, 64);
    return this.charge(budgets, (budget) => (budget.per === 'credential' ? `anonymous ${address}` : budget.per === 'signer' ? `signer ${address}` : address));
  }

  #limiterFor(budget: RateBudget) {
    let limiter = this.#limiters.get(budget);
    if (!limiter) {
      const quota = Math.max(1, Math.round(budget.max * this.#scale));
      limiter = {
        store: new LocalStore(false, false, REMEMBERED_CALLERS),
        policy: rateLimitHeaders({ policy: budget.name, quota, windowSec: budget.windowSec, remaining: 0, resetSec: 0 })['ratelimit-policy'],
        quota,
      };
      this.#limiters.set(budget, limiter);
    }
    return limiter;
  }
}

/** Requests counted before the framework saw them (by a replayed answer's check, which then let it answer). */
const chargedBefore = new WeakMap<IncomingMessage, BudgetCharge>();
/** The budgets each request was counted against, for a replayed answer of the same request to count alike. */
const countedAgainst = new WeakMap<IncomingMessage, readonly RateBudget[]>();

/** Hands the framework's hook a charge already made for this request, so it is not counted twice. */
export function noteChargedBefore(request: IncomingMessage, charge: BudgetCharge): void {
  chargedBefore.set(request, charge);
}

/** The budgets the framework's hook counted this request against (none when limits are off). */
export function budgetsCounted(request: IncomingMessage): readonly RateBudget[] {
  return countedAgainst.get(request) ?? [];
}

export function installRateLimits(app: FastifyInstance, options: RateLimitOptions): BurstLimits | null {
  if (options.scale === 0) return null;
  const limits = new BurstLimits(options.scale);
  const keyOf = (request: FastifyRequest) => (budget: RateBudget) =>
    budget.per === 'address' ? clientKey(request) : budget.per === 'signer' ? `signer ${options.signerKeyOf?.(request) ?? clientKey(request)}` : credentialKey(request);

  // After the body is read, so a public MCP call counts against the budget of the tool it calls.
  app.addHook('preHandler', (request, reply, done) => {
    let charge = chargedBefore.get(request.raw);
    if (!charge) {
      const chosen = options.budgetOf(request);
      if (!chosen) return done();
      const all = (Array.isArray(chosen) ? chosen : [chosen]) as readonly RateBudget[];
      const budgets = all.filter((budget) => budget.per !== 'signer' || options.signerKeyOf?.(request) !== undefined);
      countedAgainst.set(request.raw, budgets);
      charge = limits.charge(budgets, keyOf(request));
    }
    if (charge.refusal) return done(charge.refusal);
    if (charge.headers) reply.headers(charge.headers);
    done();
  });
  return limits;
}
