/**
 * How much room the file system holding a folder has left, for the storage probe (storage-health.ts):
 * a write that fits in space a file already holds says nothing about the next one, the free space
 * does. Only for storage on this machine (SQLite); a PostgreSQL server's disk is its own.
 */
import { statfs } from 'node:fs/promises';

/** Throws an ENOSPC error (a storage failure of kind `full`) when the folder's file system has fewer than `bytes` free. */
export async function assertRoomOnDisk(folder: string, bytes: number): Promise<void> {
  const stats = await statfs(folder);
  // Blocks an unprivileged writer may use (bavail), not those kept for root (bfree).
  const free = stats.bavail * stats.bsize;
  if (free < bytes) {
    throw Object.assign(new Error(`${free} bytes free on the disk of ${folder}, fewer than the ${bytes} the service waits for`), { code: 'ENOSPC' });
  }
}
