/** Opens the inbox's SQLite file and brings its schema up to date. */
import { openSqlite } from '@svc/shared';
import type { Kysely } from 'kysely';
import * as core from './migrations/0001-core.js';
import type { Database } from './schema.js';

export async function openDatabase(file: string): Promise<Kysely<Database>> {
  return (await openSqlite<Database>(file, { '0001-core': core })).db;
}
