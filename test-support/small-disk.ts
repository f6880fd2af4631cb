/**
 * A small filesystem a test makes itself, to see what a service does when its disk fills: a tmpfs
 * mounted on a fresh folder (Linux, as root). `fill()` takes every free byte with a filler file (or
 * all but a few), `free()` deletes it. Where mounting is not possible the test is skipped with the reason
 * (smallDiskUnavailable), unless REQUIRE_DISK_TEST=1, where it fails.
 */
import { execFileSync } from 'node:child_process';
import { openSqliteFile } from '@svc/shared';
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  /** The mounted folder. */
  dir: string;
  /**
   * Writes a filler file until the disk answers ENOSPC, then gives `leaveBytes` back (a disk with a
   * little room left: enough for a small write, not for a big one); gives the bytes it took.
   */
  fill(leaveBytes?: number): number;
  /** Deletes the filler file. */
  free(): void;
  unmount(): void;
}

/** Mounts a tmpfs of `size` (as mount(8) reads it: `8m`) on a new folder under the system's temporary folder; throws when it cannot. */
export function mountSmallDisk(size: string): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`mount -t tmpfs failed: ${stderr || (error as Error).message}`);
  }
  const filler = join(dir, 'filler');
  let mounted = true;
  const unmount = () => {
    if (!mounted) return;
    mounted = false;
    try {
      execFileSync('umount', [dir], { stdio: 'pipe' });
    } catch {
      // Something still holds a file there: detach it now, the kernel frees it when released.
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Also when the test process ends without its afterAll (a crash, a filter that ran nothing).
  process.once('exit', unmount);
  return {
    dir,
    fill(leaveBytes = 0) {
      const fd = openSync(filler, 'a');
      let taken = 0;
      try {
        // Large writes first, then page-sized ones for what a large write could not take.
        for (const chunkSize of [1024 * 1024, 4096, 512]) {
          const chunk = Buffer.alloc(chunkSize, 0x2e);
          try {
            for (;;) taken += writeSync(fd, chunk);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          }
        }
        if (leaveBytes > 0) {
          taken = Math.max(0, taken - leaveBytes);
          ftruncateSync(fd, taken);
        }
      } finally {
        closeSync(fd);
      }
      return taken;
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount,
  };
}

/**
 * Whether this machine lets a test mount a small filesystem, tried once with a tiny tmpfs mounted
 * and unmounted at once (so a test can be skipped while tests are collected, and nothing stays
 * mounted when a filter runs none of them). Gives the reason it cannot, or null; throws instead
 * when REQUIRE_DISK_TEST=1 asks that disk tests run.
 */
export function smallDiskUnavailable(): string | null {
  let reason: string | null = null;
  if (process.platform !== 'linux') reason = `a tmpfs needs Linux (this is ${process.platform})`;
  else if (typeof process.getuid === 'function' && process.getuid() !== 0) reason = 'mounting a tmpfs needs root';
  else {
    try {
      mountSmallDisk('64k').unmount();
    } catch (error) {
      reason = (error as Error).message;
    }
  }
  if (reason === null) return null;
  if (process.env.REQUIRE_DISK_TEST === '1') throw new Error(`REQUIRE_DISK_TEST=1 but no small filesystem could be made: ${reason}`);
  return `disk-full test skipped: ${reason} (set REQUIRE_DISK_TEST=1 to make this a failure)`;
}

/**
 * Empties a SQLite file's write-ahead log (a TRUNCATE checkpoint from a connection of its own), so
 * that its next commit has to take new space on the disk. Filling the disk alone does not make the
 * next write fail: once the log has been copied back, SQLite writes it again from its beginning,
 * into space the file already holds, and that commit succeeds however full the disk is (whether it
 * had been copied back by then was the service's checkpoint thread's timing, and a test's flake).
 */
export async function emptyWriteAheadLog(file: string, withinMs = 10_000): Promise<void> {
  const sqlite = openSqliteFile(file, { fileMustExist: true });
  try {
    sqlite.pragma('busy_timeout = 1000');
    // A read of the service's in this process keeps its snapshot until its turn of the event loop
    // ends, and the checkpoint answers busy meanwhile: try again after a pause, never blocking that read.
    const until = Date.now() + withinMs;
    for (;;) {
      const [result] = sqlite.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (result?.busy === 0) return;
      if (Date.now() >= until) throw new Error(`${file}: the log could not be emptied within ${withinMs} ms (a reader or writer held it)`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    sqlite.close();
  }
}
