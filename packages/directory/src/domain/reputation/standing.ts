/**
 * How the network stands with an inbox, as the answer to its signed ping says (PROTOCOL-13 §2): its
 * reputation from the last complete nightly snapshot, the receipts the network holds from it, and
 * the ranking rules in force.
 */
import type { DirectoryContext } from '../context.js';
import { rulesInForce } from '../ranking/rules.js';
import { nightOf } from './reputation.js';

export async function instanceStanding(ctx: DirectoryContext, origin: string, nowMs: number) {
  const domain = new URL(origin).host;
  const night = await ctx.store.reputation.latestComplete(nightOf(nowMs));
  const scored = night ? await ctx.store.reputation.score(night.night, domain) : null;
  const held = await ctx.store.receipts.heldFrom(domain);
  return {
    ok: true as const,
    standing:
      night && scored
        ? {
            tier: scored.tier,
            score: scored.score,
            ranked: scored.ranked,
            kept: scored.kept,
            broken: scored.broken,
            customers: scored.customers,
            as_of: new Date(night.scoringTime).toISOString(),
          }
        : { tier: 'new' as const, score: 0, ranked: false, kept: 0, broken: 0, customers: 0, as_of: null },
    receipts: { accepted: held.held, acknowledged: held.acknowledged },
    rules: rulesInForce(nowMs).version,
  };
}
