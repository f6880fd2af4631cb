/**
 * Runs rules on an item after an event, inside the rules job's transaction. Rules are tried in
 * order; the first whose conditions hold and whose move the machine accepts moves the item (the
 * item then has a new event, which starts its own round), while flags and replies let later rules
 * run too. Every act goes through the normal domain path (moveItem, recordSideEvent) as actor kind
 * `rule`, so events, guards and whatever listens to events all apply.
 */
import { Problem, newId } from '@svc/shared';
import type { DomainContext } from '../context.js';
import { addToSearchText, moveItem, recordSideEvent } from '../items/item-writer.js';
import type { ItemRecord } from '../types.js';
import type { RuleRecord } from '../../store/rule-store.js';
import { evaluateConditions } from './rule-conditions.js';
import { ruleMover } from './rule-mover.js';
import { MAX_RULES_PER_EVENT, type RuleJobPayload } from './schedule-rules.js';
import { matchesTrigger } from './rule-triggers.js';

/** Once an item carries this many rule events (moves and flags), no rule acts on it again: a last stop for rule sets that feed each other. */
export const MAX_RULE_MOVES_PER_ITEM = 10;

/** A move the machine refuses now is a rule that does not apply; the job ends normally. */
const NOT_APPLICABLE: ReadonlySet<string> = new Set(['wrong_state', 'guard_failed', 'not_allowed', 'unknown_event', 'slot_taken', 'invalid_input', 'version_conflict']);

export type RuleAct = 'moved' | 'flags' | 'reply';

/** The immediate rules an event starts. */
export async function runRulesAfterEvent(ctx: DomainContext, trigger: RuleJobPayload): Promise<void> {
  const rules = (await ctx.store.rules.listEnabled())
    .filter((rule) => rule.when.afterHours === undefined && matchesTrigger(rule.when.event, trigger.eventType))
    .slice(0, MAX_RULES_PER_EVENT);
  await runRules(ctx, trigger, rules);
}

/** One delayed rule, at its time: only if the item was not moved since the event (same version). */
export async function runDelayedRule(ctx: DomainContext, trigger: RuleJobPayload): Promise<void> {
  const rule = trigger.ruleId ? await ctx.store.rules.get(trigger.ruleId) : null;
  // A rule deleted, disabled or re-aimed since the event no longer applies to it.
  if (!rule || !rule.enabled || rule.when.afterHours === undefined || !matchesTrigger(rule.when.event, trigger.eventType)) return;
  await runRules(ctx, trigger, [rule]);
}

async function runRules(ctx: DomainContext, trigger: RuleJobPayload, rules: readonly RuleRecord[]): Promise<void> {
  let item = await ctx.store.items.get(trigger.itemId);
  // The item moved on since the event: rules judge the event they were started by, not a later state.
  if (!item || item.version !== trigger.version) return;
  const events = await ctx.store.items.listEvents(item.id);
  let ruleActs = events.filter((event) => event.actor.kind === 'rule').length;
  for (const rule of rules) {
    if (rule.id === trigger.causedByRuleId) continue;
    if (ruleActs >= MAX_RULE_MOVES_PER_ITEM) return;
    const outcome = await applyRule(ctx, rule, item, trigger.depth + 1);
    if (!outcome) continue;
    ruleActs += 1;
    item = outcome.item;
    if (outcome.act === 'moved') return;
  }
}

/** Applies one rule to the item if its conditions hold; null when it did nothing. */
export async function applyRule(ctx: DomainContext, rule: RuleRecord, item: ItemRecord, depth: number): Promise<{ act: RuleAct; item: ItemRecord } | null> {
  const outcomes = await evaluateConditions(ctx, item, rule.conditions);
  if (!outcomes.every((o) => o.holds)) return null;
  const mover = ruleMover(rule, depth);
  const action = rule.action;
  switch (action.do) {
    case 'transition':
      try {
        const moved = await moveItem(ctx, mover, item, {
          events: [action.event],
          input: action.input,
          reason: `Rule "${rule.name}".`,
        });
        return { act: 'moved', item: moved };
      } catch (error) {
        if (error instanceof Problem && NOT_APPLICABLE.has(error.code)) return null;
        throw error;
      }
    case 'set_flags': {
      const updated: ItemRecord = {
        ...item,
        needsHuman: action.needsHuman ?? item.needsHuman,
        priority: action.priority ?? item.priority,
        updatedAt: ctx.clock.now(),
      };
      if (updated.needsHuman === item.needsHuman && updated.priority === item.priority) return null;
      if (!(await ctx.store.items.update(updated, item.version))) return null;
      await recordSideEvent(ctx, mover, item, 'flags', { needsHuman: updated.needsHuman, priority: updated.priority });
      return { act: 'flags', item: updated };
    }
    case 'reply': {
      const nowMs = ctx.clock.now();
      await ctx.store.items.addMessage({
        id: newId(nowMs),
        itemId: item.id,
        authorKind: 'rule',
        authorId: rule.id,
        authorName: rule.name,
        body: action.message,
        internal: false,
        channel: mover.channel,
        createdAt: nowMs,
      });
      return { act: 'reply', item: await addToSearchText(ctx, item, action.message) };
    }
  }
}
