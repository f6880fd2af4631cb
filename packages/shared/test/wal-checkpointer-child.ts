/**
 * Child process of wal-checkpointer.test.ts: opens a service database as a service does and writes
 * notes in transactions until it is killed, printing after each commit how many notes are committed
 * and how many log pages its checkpoint worker has copied. With `close` after the file: once the
 * worker has copied pages, it destroys the handle with nothing else keeping the process alive, and
 * prints `closed` when the destroy has settled.
 */
import { openSqlite } from '@svc/shared';
import type { Kysely, Migration } from 'kysely';

const migrations: Record<string, Migration> = {
  '0001': {
    async up(db: Kysely<unknown>) {
      await db.schema.createTable('notes').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('body', 'text', (c) => c.notNull()).execute();
    },
  },
};

const { db, checkpointer } = await openSqlite<{ notes: { id?: number; body: string } }>(process.argv[2]!, migrations);
const closeOnceCheckpointing = process.argv[3] === 'close';
const body = 'n'.repeat(3_000);
let committed = 0;
for (;;) {
  if (closeOnceCheckpointing && (checkpointer?.counts.framesCopied ?? 0) > 0) {
    await db.destroy();
    process.stdout.write('closed\n');
    break;
  }
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('notes').values(Array.from({ length: 10 }, () => ({ body }))).execute();
  });
  committed += 10;
  process.stdout.write(`${JSON.stringify({ committed, framesCopied: checkpointer?.counts.framesCopied ?? 0 })}\n`);
  await new Promise((resolve) => setTimeout(resolve, 2));
}
