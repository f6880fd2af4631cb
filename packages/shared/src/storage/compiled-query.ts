/**
 * A Kysely query built and compiled once, then run with fresh values. Building a query (immutable
 * operation nodes, frozen at every step) and compiling it to SQL cost more than SQLite takes to run a
 * small statement, and a hot write ran a dozen of them. The query is still written with Kysely's
 * builder; only the values are left open: the builder gets stand-ins (slots), one per named value,
 * and the compiled parameters are mapped back to those names. A slot may be used more than once
 * (an upsert's values and its update); values written in the builder (`'active', '=', 1`) stay as
 * compiled. Nothing here knows the engine: the SQL is compiled by whatever dialect the database
 * given at first use has, and kept per dialect.
 *
 * Only plain values can be slots: not lists (`in`), identifiers, or anything that changes the
 * query's shape. A query whose shape varies keeps one CompiledOnce per shape.
 *
 * Inside a SQLite transaction a compiled query runs straight on the connection the transaction
 * holds (guarded-dialect.ts `sqliteTransactionOf`), with the same counting and statement cache.
 */
import { createQueryId, type Compilable, type CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import { sqliteTransactionOf } from './guarded-dialect.js';
import { keepPrepared } from './prepared-statements.js';

/** Stands in for a named value while the query is built. */
class Slot {
  constructor(readonly name: string) {}
}

/** Where each compiled parameter comes from: a named value, or a value fixed in the query. */
export type ParameterSource = { slot: string } | { fixed: unknown };

interface Template {
  sql: string;
  query: CompiledQuery['query'];
  sources: readonly ParameterSource[];
}

export class CompiledOnce<DB, P extends object, R> {
  readonly #build: (db: Kysely<DB>, values: P) => Compilable<R>;
  /** Templates by the dialect adapter that compiled them (a transaction shares its database's). */
  readonly #templates = new WeakMap<object, Template>();

  constructor(build: (db: Kysely<DB>, values: P) => Compilable<R>) {
    this.#build = build;
  }

  /** The compiled query with these values, ready for `db.executeQuery`. */
  compiled(db: Kysely<DB>, values: P): CompiledQuery<R> {
    const template = this.#template(db);
    const parameters = template.sources.map((source) => ('slot' in source ? (values as Record<string, unknown>)[source.slot] : source.fixed));
    // A fresh query id per run, as Kysely gives each compiled query (plugins keep per-query state by it).
    return { sql: template.sql, query: template.query, queryId: createQueryId(), parameters };
  }

  /**
   * The SQL as `db`'s dialect compiles it and where each parameter comes from, as plain data: for a
   * connection Kysely does not hold (a worker thread's own), which binds the values itself.
   */
  portable(db: Kysely<DB>): { sql: string; sources: readonly ParameterSource[] } {
    const { sql, sources } = this.#template(db);
    return { sql, sources };
  }

  async execute(db: Kysely<DB>, values: P): Promise<QueryResult<R>> {
    const query = this.compiled(db, values);
    // Inside a SQLite transaction the statement runs at once, without Kysely's executor around it.
    return sqliteTransactionOf(db)?.run(query) ?? db.executeQuery(query);
  }

  /** Every row the query answers. */
  async all(db: Kysely<DB>, values: P): Promise<R[]> {
    return (await this.execute(db, values)).rows;
  }

  /** The first row, or undefined. */
  async first(db: Kysely<DB>, values: P): Promise<R | undefined> {
    return (await this.execute(db, values)).rows[0];
  }

  /** Runs a write; answers how many rows it changed. */
  async run(db: Kysely<DB>, values: P): Promise<number> {
    return Number((await this.execute(db, values)).numAffectedRows ?? 0n);
  }

  #template(db: Kysely<DB>): Template {
    const adapter = db.getExecutor().adapter;
    let template = this.#templates.get(adapter);
    if (!template) {
      template = compileTemplate(db, this.#build);
      this.#templates.set(adapter, template);
    }
    return template;
  }
}

/** A query compiled once; `build` gets stand-ins for `values` and must use each as a plain value. */
export function compileOnce<DB, P extends object, R>(build: (db: Kysely<DB>, values: P) => Compilable<R>): CompiledOnce<DB, P, R> {
  return new CompiledOnce(build);
}

function compileTemplate<DB, P extends object, R>(db: Kysely<DB>, build: (db: Kysely<DB>, values: P) => Compilable<R>): Template {
  const slots = new Map<string, Slot>();
  const values = new Proxy({} as P, {
    get: (_target, name) => {
      if (typeof name !== 'string') return undefined;
      let slot = slots.get(name);
      if (!slot) {
        slot = new Slot(name);
        slots.set(name, slot);
      }
      return slot;
    },
  });
  const compiled = build(db, values).compile();
  const used = new Set<string>();
  const sources = compiled.parameters.map((parameter): ParameterSource => {
    if (parameter instanceof Slot) {
      used.add(parameter.name);
      return { slot: parameter.name };
    }
    return { fixed: parameter };
  });
  // A slot the dialect did not pass as a parameter (a list, an identifier) would be sent as the stand-in itself.
  const lost = [...slots.keys()].filter((name) => !used.has(name));
  if (lost.length > 0) throw new Error(`compileOnce: ${lost.join(', ')} did not become parameters of: ${compiled.sql}`);
  // On PostgreSQL, a prepared statement on each connection (prepared-statements.ts).
  keepPrepared(compiled.query);
  return { sql: compiled.sql, query: compiled.query, sources };
}

/**
 * The stand-ins of `keys`, as a row a builder takes (`values(...)`, `set(...)`): the stand-ins
 * object has no keys of its own to spread.
 */
export function slotsOf<P extends object, K extends keyof P & string>(values: P, keys: readonly K[]): Pick<P, K> {
  const row = {} as Pick<P, K>;
  for (const key of keys) row[key] = values[key];
  return row;
}
