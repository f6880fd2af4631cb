/**
 * A small filesystem a test makes itself, to see what a service does when its disk fills: a tmpfs
 * mounted on a fresh folder (Linux, as root). `fill()` takes every free byte with a filler file,
 * `free()` deletes it. Where mounting is not possible the test is skipped with the reason, unless
 * REQUIRE_DISK_TEST=1, where it fails.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  /** The mounted folder. */
  dir: string;
  /** Writes a filler file until the disk answers ENOSPC; gives the bytes it took. */
  fill(): number;
  /** Deletes the filler file. */
  free(): void;
  unmount(): void;
}

export type SmallDiskResult = { ok: true; disk: SmallDisk } | { ok: false; reason: string };

/** Mounts a tmpfs of `size` (as mount(8) reads it: `8m`) on a new folder under the system's temporary folder. */
export function mountSmallDisk(size: string): SmallDiskResult {
  if (process.platform !== 'linux') return { ok: false, reason: `a tmpfs needs Linux (this is ${process.platform})` };
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return { ok: false, reason: 'mounting a tmpfs needs root' };
  const dir = mkdtempSync(join(tmpdir(), 'small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { ok: false, reason: `mount -t tmpfs failed: ${stderr || (error as Error).message}` };
  }
  const filler = join(dir, 'filler');
  return {
    ok: true,
    disk: {
      dir,
      fill() {
        const fd = openSync(filler, 'a');
        let taken = 0;
        try {
          // Large writes first, then page-sized ones for what a large write could not take.
          for (const size of [1024 * 1024, 4096, 512]) {
            const chunk = Buffer.alloc(size, 0x2e);
            try {
              for (;;) taken += writeSync(fd, chunk);
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
            }
          }
        } finally {
          closeSync(fd);
        }
        return taken;
      },
      free() {
        rmSync(filler, { force: true });
      },
      unmount() {
        try {
          execFileSync('umount', [dir], { stdio: 'pipe' });
        } catch {
          // Something still holds a file there: detach it now, the kernel frees it when released.
          execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
        }
        rmSync(dir, { recursive: true, force: true });
      },
    },
  };
}

/** Why a disk test does not run, or throws when REQUIRE_DISK_TEST=1 asks that it must. */
export function skipReason(result: SmallDiskResult): string | null {
  if (result.ok) return null;
  const message = `disk-full test skipped: ${result.reason} (set REQUIRE_DISK_TEST=1 to make this a failure)`;
  if (process.env.REQUIRE_DISK_TEST === '1') throw new Error(`REQUIRE_DISK_TEST=1 but no small filesystem could be made: ${result.reason}`);
  return message;
}
