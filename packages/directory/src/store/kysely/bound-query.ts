/**
 * A query of one shape, compiled by Kysely once per engine and afterwards only bound to new values:
 * on the intake's hot path, building and compiling a query each time costs more than SQLite running
 * it. The SQL is still Kysely's: it is compiled from the builder (by the compiler of the engine the
 * query runs on, `compilerFor`) with a stand-in for each value, and each parameter is bound by the
 * name of the value it stood in for.
 */
import { engineOf, type StorageEngine } from '@svc/shared';
import {
  CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Compilable,
  type QueryResult,
} from 'kysely';
import type { DirectoryDatabase } from './schema.js';

export interface BoundQuery<Values extends Record<string, unknown>> {
  run<R>(db: Kysely<DirectoryDatabase>, values: Values): Promise<QueryResult<R>>;
}

const STAND_IN = '\u0000bound:';

/** A query builder with no connection for each engine: only used to compile bound queries. */
const compilers = new Map<StorageEngine, Kysely<DirectoryDatabase>>();
function compilerFor(engine: StorageEngine): Kysely<DirectoryDatabase> {
  let compiler = compilers.get(engine);
  if (!compiler) {
    compiler =
      engine === 'postgres'
        ? new Kysely<DirectoryDatabase>({ dialect: { createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (k) => new PostgresIntrospector(k), createQueryCompiler: () => new PostgresQueryCompiler() } })
        : new Kysely<DirectoryDatabase>({ dialect: { createAdapter: () => new SqliteAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (k) => new SqliteIntrospector(k), createQueryCompiler: () => new SqliteQueryCompiler() } });
    compilers.set(engine, compiler);
  }
  return compiler;
}

/**
 * `build` makes the query from its values with the builder it is given (every value a parameter, no
 * value decided by code); `names` are the keys of the values it reads.
 */
export function boundQuery<Values extends Record<string, unknown>>(
  build: (values: Values, db: Kysely<DirectoryDatabase>) => Compilable,
  names: readonly (keyof Values & string)[],
): BoundQuery<Values> {
  const compiled = new Map<StorageEngine, { sql: string; order: (keyof Values & string)[] }>();
  const compile = (engine: StorageEngine) => {
    const standIns = Object.fromEntries(names.map((name) => [name, `${STAND_IN}${name}`])) as unknown as Values;
    const query = build(standIns, compilerFor(engine)).compile();
    const order = query.parameters.map((parameter) => {
      if (typeof parameter !== 'string' || !parameter.startsWith(STAND_IN)) throw new Error(`boundQuery: a parameter of ${query.sql} is not one of its values`);
      return parameter.slice(STAND_IN.length) as keyof Values & string;
    });
    return { sql: query.sql, order };
  };
  return {
    run: <R>(db: Kysely<DirectoryDatabase>, values: Values) => {
      const engine = engineOf(db);
      let query = compiled.get(engine);
      if (!query) {
        query = compile(engine);
        compiled.set(engine, query);
      }
      return db.executeQuery<R>(CompiledQuery.raw(query.sql, query.order.map((name) => values[name])));
    },
  };
}
