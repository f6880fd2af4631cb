/** Storage of the owner's rules (docs/rules.md): what the domain needs, in domain types. */
import type { RuleAction, RuleCondition, RuleTrigger } from '../domain/rules/rule-schema.js';

export interface RuleRecord {
  id: string;
  name: string;
  enabled: boolean;
  /** Rules are tried in ascending position, then id. */
  position: number;
  when: RuleTrigger;
  conditions: RuleCondition[];
  action: RuleAction;
  createdAt: number;
  updatedAt: number;
}

export interface RuleStore {
  /** Every rule in the order they are tried. */
  list(): Promise<RuleRecord[]>;
  /** Enabled rules in the order they are tried. */
  listEnabled(): Promise<RuleRecord[]>;
  get(id: string): Promise<RuleRecord | null>;
  /** Inserts the rule, or replaces the one with its id. */
  put(rule: RuleRecord): Promise<void>;
  /** False when no rule had this id. */
  delete(id: string): Promise<boolean>;
  count(): Promise<number>;
}
