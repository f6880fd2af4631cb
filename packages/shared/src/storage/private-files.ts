/**
 * A service's data is its own. The data folder is made 0700 and its database files 0600 (SQLite gives
 * the -wal and -shm files it makes beside a database the database file's mode), also when an earlier
 * version left them readable by others. A folder with the sticky bit (such as /tmp) is shared by
 * design and keeps its mode; the files in it are still private.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

const PRIVATE_FOLDER = 0o700;
const PRIVATE_FILE = 0o600;
const STICKY_BIT = 0o1000;

export function preparePrivateDataFile(file: string): void {
  const folder = dirname(file);
  mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER });
  const folderStat = statSync(folder);
  const ownFolder = typeof process.getuid !== 'function' || folderStat.uid === process.getuid();
  if (ownFolder && (folderStat.mode & STICKY_BIT) === 0) chmodSync(folder, PRIVATE_FOLDER);
  if (!existsSync(file)) closeSync(openSync(file, 'a', PRIVATE_FILE));
  for (const path of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    if (existsSync(path)) chmodSync(path, PRIVATE_FILE);
  }
}
