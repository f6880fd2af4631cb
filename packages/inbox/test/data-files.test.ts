/**
 * The data folder and what the inbox keeps in it are private to the service's user (issue 19,
 * "Security misconfiguration"): the folder 0700, the database, its WAL and the secret key 0600,
 * also when an earlier version left the database readable by others.
 */
// sqlite only: the modes of SQLite's own files; a PostgreSQL server keeps its files itself
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startInbox, type TestInbox } from './support/harness.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe.skipIf(process.platform === 'win32')('the data folder', () => {
  let t: TestInbox | undefined;
  const folders: string[] = [];
  afterEach(async () => {
    await t?.close({ removeData: true });
    t = undefined;
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });

  it('is made private with every file in it, WAL included, after a write', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'inbox-files-'));
    folders.push(parent);
    const dataDir = join(parent, 'data');
    t = await startInbox({ dataDir });
    const created = await t.request('POST', '/v1/messages', { body: { message: 'Hello', contact: { name: 'Ana' } } });
    expect(created.status).toBe(201);

    expect(modeOf(dataDir)).toBe(0o700);
    const files = readdirSync(dataDir);
    expect(files).toEqual(expect.arrayContaining(['inbox.sqlite', 'inbox.sqlite-wal', 'secret.key']));
    for (const file of files) expect([file, modeOf(join(dataDir, file))]).toEqual([file, 0o600]);
  });

  it('takes back files an earlier version left readable by others', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'inbox-files-'));
    folders.push(dataDir);
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'inbox.sqlite'), '', { mode: 0o644 });
    chmodSync(join(dataDir, 'inbox.sqlite'), 0o644);
    t = await startInbox({ dataDir });
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(join(dataDir, 'inbox.sqlite'))).toBe(0o600);
  });
});
