/**
 * What the shape of a rule cannot say: that its trigger names events that exist, that its
 * conditions can be true of the items it triggers on, that its action is an event a rule may fire
 * without input it cannot give, and positive_only (inbox spec §7): a rule that reads the
 * customer's standing may not refuse, cancel or expire.
 */
import { Problem, type FieldProblem } from '@svc/shared';
import { MACHINES } from '../machines/index.js';
import type { ItemType } from '../types.js';
import { FACT_TYPES, STANDING_FACTS } from './rule-conditions.js';
import type { RuleAction, RuleCondition, RuleTrigger } from './rule-schema.js';
import { triggerEventsOf, typesOfTrigger } from './rule-triggers.js';

/** Events that refuse, cancel or expire: never fired by a rule that reads the customer's standing. */
export const ADVERSE_EVENTS: ReadonlySet<string> = new Set(['decline', 'reject', 'cancel', 'cancel_late', 'cancel_by_business', 'expire', 'mark_spam', 'close']);

export interface RuleDefinition {
  when: RuleTrigger;
  if: readonly RuleCondition[];
  then: RuleAction;
}

/** Refuses with invalid_input (naming the fields, under `path`) or positive_only; returns quietly when the rule is sound. */
export function checkRule(rule: RuleDefinition, path: string): void {
  const fields: FieldProblem[] = [];
  const invalid = (at: string, message: string) => fields.push({ path: `${path}.${at}`, problem: 'invalid', message });

  const types = typesOfTrigger(rule.when.event);
  if (types.length === 0) invalid('when.event', unknownTriggerMessage(rule.when.event));

  if (types.length > 0) {
    rule.if.forEach((condition, index) => {
      if (!FACT_TYPES[condition.fact].some((t) => types.includes(t))) {
        invalid(`if.${index}.fact`, `${condition.fact} is about ${FACT_TYPES[condition.fact].join(', ')} items; ${rule.when.event} starts on none of them.`);
      }
    });
    const action = rule.then;
    if (action.do === 'transition') {
      const problem = transitionProblem(types, action.event, action.input);
      if (problem) invalid(problem.at, problem.message);
    }
  }
  if (fields.length > 0) throw new Problem('invalid_input', `Fix these fields: ${[...new Set(fields.map((f) => f.path))].join(', ')}.`, { fields });

  const standing = rule.if.find((condition) => STANDING_FACTS.has(condition.fact));
  if (standing && rule.then.do === 'transition' && ADVERSE_EVENTS.has(rule.then.event)) {
    throw new Problem(
      'positive_only',
      `A rule that reads the customer's standing (${standing.fact}) may only act in the customer's favour; ${rule.then.event} refuses, cancels or expires. Raise needsHuman instead, and let a person decide.`,
      { fields: [{ path: `${path}.then.event`, problem: 'invalid', message: `${rule.then.event} is not allowed with a standing condition.` }] },
    );
  }
}

/** Whether some triggered type has the event for a rule, and no such type needs input a rule cannot give. */
function transitionProblem(types: readonly ItemType[], event: string, input: { paymentUrl?: string | undefined } | undefined) {
  if (input !== undefined && event !== 'request_payment') {
    return { at: 'then.input', message: 'Only request_payment takes input from a rule (paymentUrl); a rule never sets a price or a time.' };
  }
  const applicable = types.flatMap((type) =>
    MACHINES[type].transitions.filter((row) => row.event === event && row.by.includes('rule')).map((row) => ({ type, row })),
  );
  if (applicable.length === 0) {
    const offered = [...new Set(types.flatMap((type) => MACHINES[type].transitions.filter((row) => row.by.includes('rule')).map((row) => row.event)))];
    return { at: 'then.event', message: `A rule cannot fire ${event} on ${types.join(', ')} items; it may fire: ${offered.join(', ')}.` };
  }
  const needsInput = applicable.find(({ row }) => row.input && !row.input.safeParse(input ?? {}).success);
  if (needsInput) {
    return { at: 'then.event', message: `${needsInput.type}.${event} needs input a rule cannot give (such as a time or a total); a person does that.` };
  }
  return null;
}

function unknownTriggerMessage(pattern: string): string {
  const [typePart, eventPart] = pattern.split('.');
  const type = Object.hasOwn(MACHINES, typePart ?? '') ? (typePart as ItemType) : null;
  if (pattern !== '*' && typePart !== '*' && !type) return `${typePart} is not an item type; use booking, order, quote_request, message or refund.`;
  if (type) return `${type} has no event ${eventPart}; its events are: ${triggerEventsOf(type).join(', ')}.`;
  return `No item type has an event ${eventPart}.`;
}
