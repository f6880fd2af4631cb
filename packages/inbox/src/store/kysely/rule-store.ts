/** The owner's rules in SQLite: one row per rule; conditions and action as JSON text. */
import { compileOnce } from '@svc/shared';
import type { Kysely, Selectable } from 'kysely';
import type { RuleAction, RuleCondition } from '../../domain/rules/rule-schema.js';
import type { RuleRecord, RuleStore } from '../rule-store.js';
import type { Database, RulesTable } from './schema.js';

/** Read after every create and move (which rules it starts): compiled once. */
const enabledRules = compileOnce((db: Kysely<Database>) => db.selectFrom('rules').selectAll().where('enabled', '=', 1).orderBy('position').orderBy('id'));

export class KyselyRuleStore implements RuleStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async list(): Promise<RuleRecord[]> {
    const rows = await this.#db.selectFrom('rules').selectAll().orderBy('position').orderBy('id').execute();
    return rows.map(toRecord);
  }

  async listEnabled(): Promise<RuleRecord[]> {
    const rows = await enabledRules.all(this.#db, {});
    return rows.map(toRecord);
  }

  async get(id: string): Promise<RuleRecord | null> {
    const row = await this.#db.selectFrom('rules').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async put(rule: RuleRecord): Promise<void> {
    const row = {
      id: rule.id,
      name: rule.name,
      enabled: rule.enabled ? 1 : 0,
      position: rule.position,
      trigger_event: rule.when.event,
      after_hours: rule.when.afterHours ?? null,
      conditions: JSON.stringify(rule.conditions),
      action: JSON.stringify(rule.action),
      created_at: rule.createdAt,
      updated_at: rule.updatedAt,
    };
    const { id: _id, created_at: _created, ...changes } = row;
    await this.#db
      .insertInto('rules')
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet(changes))
      .execute();
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.#db.deleteFrom('rules').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async count(): Promise<number> {
    const row = await this.#db.selectFrom('rules').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

function toRecord(row: Selectable<RulesTable>): RuleRecord {
  return {
    id: row.id,
    name: row.name,
    enabled: row.enabled === 1,
    position: row.position,
    when: row.after_hours === null ? { event: row.trigger_event } : { event: row.trigger_event, afterHours: row.after_hours },
    conditions: JSON.parse(row.conditions) as RuleCondition[],
    action: JSON.parse(row.action) as RuleAction,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
