/**
 * The hook item-writer calls after it records a create or a move: in the same transaction, it
 * queues the durable jobs that will run the enabled rules this event starts (one job for every
 * immediate rule, one per delayed rule at its time). Nothing is queued when no rule matches, and
 * nothing at all once a chain of rule moves is MAX_CHAIN_DEPTH deep.
 */
import { newId } from '@svc/shared';
import type { DomainContext } from '../context.js';
import type { Mover } from '../items/mover.js';
import type { ItemRecord } from '../types.js';
import { chainDepthOf } from './rule-mover.js';
import { keptRead } from '../kept-reads.js';
import { matchesTrigger } from './rule-triggers.js';

/** A rule's move may start other rules, and theirs others, three deep at most: no loops. */
export const MAX_CHAIN_DEPTH = 3;
/** At most this many rules are tried for one event (immediate and delayed alike). */
export const MAX_RULES_PER_EVENT = 20;

export const RULES_JOB = 'rules.run';
export const DELAYED_RULE_JOB = 'rules.run_delayed';

/** What a rules job needs to find the event again: the item at the version the event produced. */
export interface RuleJobPayload {
  itemId: string;
  version: number;
  eventType: string;
  /** Chain depth of the event's maker; a rule acting on it moves at depth + 1. */
  depth: number;
  /** The rule whose move this event is, if any: a rule never acts on its own event. */
  causedByRuleId: string | null;
  /** Delayed jobs name their rule. */
  ruleId?: string;
}

export async function scheduleRules(ctx: DomainContext, mover: Mover, item: ItemRecord, eventType: string): Promise<void> {
  const depth = chainDepthOf(mover);
  if (depth >= MAX_CHAIN_DEPTH) return;
  const enabled = await keptRead(ctx.store, 'rules', () => ctx.store.rules.listEnabled());
  const rules = enabled.filter((rule) => matchesTrigger(rule.when.event, eventType)).slice(0, MAX_RULES_PER_EVENT);
  if (rules.length === 0) return;
  const nowMs = ctx.clock.now();
  const base: RuleJobPayload = {
    itemId: item.id,
    version: item.version,
    eventType,
    depth,
    causedByRuleId: mover.actor.kind === 'rule' ? mover.actor.id : null,
  };
  if (rules.some((rule) => rule.when.afterHours === undefined)) {
    await ctx.store.jobs.enqueue(
      { id: newId(nowMs), kind: RULES_JOB, payload: { ...base }, runAt: nowMs, dedupeKey: `rules:${item.id}:${item.version}` },
      nowMs,
    );
  }
  for (const rule of rules) {
    if (rule.when.afterHours === undefined) continue;
    await ctx.store.jobs.enqueue(
      {
        id: newId(nowMs),
        kind: DELAYED_RULE_JOB,
        payload: { ...base, ruleId: rule.id },
        runAt: nowMs + rule.when.afterHours * 3_600_000,
        dedupeKey: `rules:${rule.id}:${item.id}:${item.version}`,
      },
      nowMs,
    );
  }
}
