/**
 * Budgets for bursts (docs/security.md): each request a service classifies is counted against one
 * named budget, per client address (IPv6 by /64) or per credential, in fixed windows kept by
 * @fastify/rate-limit's store. A caller under a budget is told where it stands on every answer
 * (RateLimit and RateLimit-Policy, rate-limit-headers.ts); a caller over it gets 429 rate_limited
 * with Retry-After, before the request does any work.
 *
 * One setting per service scales every budget (INBOX_RATE_LIMIT, DIRECTORY_RATE_LIMIT): 2 doubles
 * them, 0 turns limits off (benchmarks and load tests).
 */
import { createHash } from 'node:crypto';
import fastifyRateLimit from '@fastify/rate-limit';
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
  if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`${name} must be a number of at least 0 (0 turns limits off), not ${value}`);
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

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

export function installRateLimits(app: FastifyInstance, options: RateLimitOptions): void {
  if (options.scale === 0) return;
  void app.register(fastifyRateLimit, { global: false, cache: REMEMBERED_CALLERS });
  /** Per budget: its limiter (made once the plugin is loaded) and its constant RateLimit-Policy. */
  const limiters = new Map<RateBudget, { take: Limiter; policy: string; quota: number }>();
  const limiterFor = (budget: RateBudget) => {
    let limiter = limiters.get(budget);
    if (!limiter) {
      const quota = Math.max(1, Math.round(budget.max * options.scale));
      limiter = {
        take: app.createRateLimit({
          max: quota,
          timeWindow: budget.windowSec * 1000,
          keyGenerator: (request) =>
            budget.per === 'address' ? clientKey(request) : budget.per === 'signer' ? `signer ${options.signerKeyOf?.(request) ?? clientKey(request)}` : credentialKey(request),
        }),
        policy: rateLimitHeaders({ policy: budget.name, quota, windowSec: budget.windowSec, remaining: 0, resetSec: 0 })['ratelimit-policy'],
        quota,
      };
      limiters.set(budget, limiter);
    }
    return limiter;
  };

  // After the body is read, so a public MCP call counts against the budget of the tool it calls.
  app.addHook('preHandler', async (request, reply) => {
    const chosen = options.budgetOf(request);
    if (!chosen) return;
    const budgets = (Array.isArray(chosen) ? chosen : [chosen]) as readonly RateBudget[];
    let shown = false;
    for (const budget of budgets) {
      if (budget.per === 'signer' && options.signerKeyOf?.(request) === undefined) continue;
      const limiter = limiterFor(budget);
      const decision = await limiter.take(request);
      if (decision.isAllowed) continue;
      if (decision.isExceeded) {
        const state = { policy: budget.name, quota: limiter.quota, windowSec: budget.windowSec, resetSec: decision.ttlInSeconds };
        const retryAfter = Math.max(1, decision.ttlInSeconds);
        const who = budget.per === 'address' ? 'this address' : budget.per === 'signer' ? 'this signing key' : 'this key';
        throw new Problem('rate_limited', `Too many ${budget.describes} from ${who}; wait ${retryAfter} s and retry.`, {
          headers: rateLimitedHeaders(state, retryAfter),
          extensions: { retryAfter },
        });
      }
      // The first budget is the one a caller is told about on every answer.
      if (!shown) {
        reply.header('ratelimit-policy', limiter.policy);
        reply.header('ratelimit', `"${budget.name}";r=${decision.remaining};t=${decision.ttlInSeconds}`);
        shown = true;
      }
    }
  });
}
