/**
 * Who a rule acts as: actor kind `rule` with the rule's id and name, on channel `rule`, carrying how
 * deep in a chain of rule moves this one is (a person's or the system's event is depth 0).
 */
import type { Mover } from '../items/mover.js';
import type { Actor } from '../types.js';

export interface RuleMover extends Mover {
  /** 1 for a rule acting on a person's event, 2 for a rule acting on that rule's event, … */
  ruleChainDepth: number;
}

export function ruleMover(rule: { id: string; name: string }, depth: number): RuleMover {
  const actor: Actor = { kind: 'rule', id: rule.id, name: rule.name };
  return { actor, channel: 'rule', ruleChainDepth: depth };
}

/** The chain depth of whoever made an event: a rule's mover carries it; anyone else is depth 0. */
export function chainDepthOf(mover: Mover): number {
  const depth = (mover as Partial<RuleMover>).ruleChainDepth;
  return typeof depth === 'number' ? depth : 0;
}
