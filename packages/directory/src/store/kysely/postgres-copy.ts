/**
 * PostgreSQL's COPY … FROM STDIN for the bulk load (pg-copy-streams over the transaction's own
 * connection): rows go to the server as text, tab between columns, one line each, with no statement
 * to parse or plan and no parameters to bind.
 */
import { onPostgresClient, type AnyKysely } from '@svc/shared';
import { once } from 'node:events';
import { from as copyFrom } from 'pg-copy-streams';

type CopyValue = string | number | null | undefined;

/** Bytes gathered before a write to the stream. */
const WRITE_AT = 1 << 20;

/** Characters COPY's text format reads as special inside a value. */
const SPECIAL = /[\\\n\r\t]/;
const SPECIAL_ALL = /[\\\n\r\t]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A value as COPY's text format writes it: \N for null, the special characters escaped. */
function copyText(value: CopyValue): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'number') return String(value);
  return SPECIAL.test(value) ? value.replace(SPECIAL_ALL, (c) => ESCAPED[c] as string) : value;
}

/** Copies `rows` into `table` (its `columns`, each row's values from `valuesOf` in that order) on the handle's connection. */
export async function copyRowsIn<R>(db: AnyKysely, table: string, columns: readonly string[], rows: readonly R[], valuesOf: (row: R, index: number) => CopyValue[]): Promise<number> {
  const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;
  const text = `COPY ${quoted(table)} (${columns.map(quoted).join(', ')}) FROM STDIN`;
  return onPostgresClient(db, async (client) => {
    const stream = client.query(copyFrom(text));
    const done = new Promise<void>((resolve, reject) => {
      stream.on('finish', resolve);
      stream.on('error', reject);
    });
    // Nothing waits on `done` while rows are written; its failure is read below.
    done.catch(() => undefined);
    let pending: string[] = [];
    let size = 0;
    for (let i = 0; i < rows.length; i++) {
      const line = `${valuesOf(rows[i] as R, i).map(copyText).join('\t')}\n`;
      pending.push(line);
      size += line.length;
      if (size < WRITE_AT) continue;
      const flowing = stream.write(pending.join(''));
      pending = [];
      size = 0;
      if (!flowing) await Promise.race([once(stream, 'drain'), done]);
    }
    stream.end(pending.join(''));
    await done;
    return rows.length;
  });
}
