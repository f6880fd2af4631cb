/**
 * A query of one shape, compiled by Kysely once and afterwards only bound to new values: on the
 * intake's hot path, building and compiling a query each time costs more than SQLite running it. The
 * SQL is still Kysely's: it is compiled from the builder with a stand-in for each value, and each
 * parameter is bound by the name of the value it stood in for.
 */
import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from 'kysely';
import type { DirectoryDatabase } from './schema.js';

export interface BoundQuery<Values extends Record<string, unknown>> {
  run<R>(db: Kysely<DirectoryDatabase>, values: Values): Promise<QueryResult<R>>;
}

const STAND_IN = '\u0000bound:';

/**
 * `build` makes the query from its values (every value a parameter, no value decided by code);
 * `names` are the keys of the values it reads.
 */
export function boundQuery<Values extends Record<string, unknown>>(build: (values: Values) => Compilable, names: readonly (keyof Values & string)[]): BoundQuery<Values> {
  let compiled: { sql: string; order: (keyof Values & string)[] } | null = null;
  const compile = () => {
    const standIns = Object.fromEntries(names.map((name) => [name, `${STAND_IN}${name}`])) as unknown as Values;
    const query = build(standIns).compile();
    const order = query.parameters.map((parameter) => {
      if (typeof parameter !== 'string' || !parameter.startsWith(STAND_IN)) throw new Error(`boundQuery: a parameter of ${query.sql} is not one of its values`);
      return parameter.slice(STAND_IN.length) as keyof Values & string;
    });
    return { sql: query.sql, order };
  };
  return {
    run: <R>(db: Kysely<DirectoryDatabase>, values: Values) => {
      compiled ??= compile();
      return db.executeQuery<R>(CompiledQuery.raw(compiled.sql, compiled.order.map((name) => values[name])));
    },
  };
}
