/**
 * The owner's side of rules: list, read, add or replace, delete, and a dry run that says what a
 * rule would do to an item now without changing anything.
 */
import { Problem, invalidField, newId } from '@svc/shared';
import { loadSettings, type DomainContext } from '../context.js';
import { checkGuards } from '../items/guards.js';
import { loadItem } from '../items/owner-items.js';
import { MACHINES, resolveTransition } from '../machines/index.js';
import { isoUtc } from '../time.js';
import type { ItemRecord } from '../types.js';
import type { RuleRecord } from '../../store/rule-store.js';
import { evaluateConditions, type ConditionOutcome } from './rule-conditions.js';
import { MAX_RULES, type RuleInput } from './rule-schema.js';
import { typesOfTrigger } from './rule-triggers.js';
import { checkRule } from './rule-validation.js';

export function ruleView(rule: RuleRecord) {
  return {
    id: rule.id,
    name: rule.name,
    enabled: rule.enabled,
    position: rule.position,
    when: rule.when,
    if: rule.conditions,
    then: rule.action,
    createdAt: isoUtc(rule.createdAt),
    updatedAt: isoUtc(rule.updatedAt),
  };
}

export async function listRules(ctx: DomainContext, page: { after?: string | undefined; limit: number }) {
  const all = await ctx.store.rules.list();
  const start = page.after === undefined ? 0 : all.findIndex((rule) => rule.id === page.after) + 1;
  if (page.after !== undefined && start === 0) throw invalidField('cursor', 'cursor names a rule that no longer exists; start again without it.');
  const slice = all.slice(start, start + page.limit);
  const hasMore = start + page.limit < all.length;
  return { items: slice.map(ruleView), lastId: hasMore ? (slice[slice.length - 1]?.id ?? null) : null };
}

export async function getRule(ctx: DomainContext, id: string): Promise<RuleRecord> {
  const rule = await ctx.store.rules.get(id);
  if (!rule) throw new Problem('not_found', `No rule has id ${id}.`);
  return rule;
}

export async function upsertRule(ctx: DomainContext, input: RuleInput): Promise<{ rule: ReturnType<typeof ruleView>; created: boolean }> {
  checkRule(input, 'rule');
  const existing = input.id ? await ctx.store.rules.get(input.id) : null;
  if (!existing && (await ctx.store.rules.count()) >= MAX_RULES) {
    throw new Problem('invalid_input', `An inbox keeps at most ${MAX_RULES} rules; delete one first.`, {
      fields: [{ path: 'rule.id', problem: 'invalid', message: `At most ${MAX_RULES} rules.` }],
    });
  }
  const nowMs = ctx.clock.now();
  const rule: RuleRecord = {
    id: input.id ?? newId(nowMs),
    name: input.name,
    enabled: input.enabled,
    position: input.position ?? existing?.position ?? (await nextPosition(ctx)),
    when: input.when.afterHours === undefined ? { event: input.when.event } : { event: input.when.event, afterHours: input.when.afterHours },
    conditions: input.if,
    action: input.then,
    createdAt: existing?.createdAt ?? nowMs,
    updatedAt: nowMs,
  };
  await ctx.store.rules.put(rule);
  return { rule: ruleView(rule), created: existing === null };
}

async function nextPosition(ctx: DomainContext): Promise<number> {
  const all = await ctx.store.rules.list();
  return all.reduce((max, rule) => Math.max(max, rule.position + 1), 0);
}

export async function deleteRule(ctx: DomainContext, id: string) {
  const rule = await getRule(ctx, id);
  await ctx.store.rules.delete(id);
  return ruleView(rule);
}

/**
 * What the rule would do to the item now, as if its trigger had just happened: the conditions
 * read, and the act with the machine's answer (guards included). Reads only.
 */
export async function testRule(ctx: DomainContext, source: { ruleId?: string | undefined; rule?: RuleInput | undefined }, itemId: string) {
  let rule: RuleRecord;
  if (source.rule) {
    checkRule(source.rule, 'rule');
    rule = {
      id: source.rule.id ?? 'draft',
      name: source.rule.name,
      enabled: source.rule.enabled,
      position: source.rule.position ?? 0,
      when: source.rule.when,
      conditions: source.rule.if,
      action: source.rule.then,
      createdAt: ctx.clock.now(),
      updatedAt: ctx.clock.now(),
    };
  } else if (source.ruleId) {
    rule = await getRule(ctx, source.ruleId);
  } else {
    throw invalidField('rule_id', 'Name a stored rule by rule_id, or send a rule to try.', 'missing');
  }
  const item = await loadItem(ctx, itemId);
  const item_ = { id: item.id, type: item.type, state: item.state, version: item.version };
  const base = { rule: ruleView(rule), item: item_ };
  if (!typesOfTrigger(rule.when.event).includes(item.type)) {
    return { ...base, outcome: 'not_applicable' as const, detail: `${rule.when.event} never starts on a ${item.type}.`, conditions: [], refusal: null };
  }
  const conditions = await evaluateConditions(ctx, item, rule.conditions);
  const shown = conditions.map((c: ConditionOutcome) => ({ fact: c.fact, holds: c.holds, detail: c.detail }));
  if (!conditions.every((c) => c.holds)) {
    return { ...base, outcome: 'conditions_not_met' as const, detail: 'Not every condition holds, so the rule would do nothing.', conditions: shown, refusal: null };
  }
  const refusal = await actionRefusal(ctx, rule, item);
  if (refusal) {
    return {
      ...base,
      outcome: 'refused' as const,
      detail: 'The conditions hold, but the item would refuse the act now.',
      conditions: shown,
      refusal: { code: refusal.code, detail: refusal.message },
    };
  }
  return { ...base, outcome: 'would_act' as const, detail: describeAct(rule, item), conditions: shown, refusal: null };
}

/** The machine's refusal of the rule's act, or null when it would go through. */
async function actionRefusal(ctx: DomainContext, rule: RuleRecord, item: ItemRecord): Promise<Problem | null> {
  const action = rule.action;
  if (action.do === 'set_flags') {
    const unchanged = (action.needsHuman ?? item.needsHuman) === item.needsHuman && (action.priority ?? item.priority) === item.priority;
    return unchanged ? new Problem('wrong_state', 'The item already has these flags.') : null;
  }
  if (action.do === 'reply') return null;
  try {
    const rows = resolveTransition(MACHINES[item.type], item.state, action.event, 'rule');
    const { settings } = await loadSettings(ctx.store);
    let refusal: Problem | null = null;
    for (const row of rows) {
      const input = row.input ? (row.input.parse(action.input ?? {}) as Record<string, unknown>) : {};
      refusal = await checkGuards({ ctx, item, row, input, settings, actor: 'rule', nowMs: ctx.clock.now() });
      if (!refusal) return null;
    }
    return refusal;
  } catch (error) {
    if (error instanceof Problem) return error;
    throw error;
  }
}

function describeAct(rule: RuleRecord, item: ItemRecord): string {
  const action = rule.action;
  switch (action.do) {
    case 'transition':
      return `The rule would fire ${item.type}.${action.event} as actor kind rule.`;
    case 'set_flags':
      return `The rule would set ${[action.needsHuman !== undefined ? `needsHuman ${action.needsHuman}` : null, action.priority !== undefined ? `priority ${action.priority}` : null].filter(Boolean).join(' and ')} (a ${item.type}.flags event).`;
    case 'reply':
      return 'The rule would write its text to the customer.';
  }
}
