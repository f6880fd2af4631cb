/**
 * Work that may wait yields the cores to the node's searches and to the database (issue 40): the
 * hour's order's tree is hashed for minutes after the change, on two cores the node's thread and the
 * database server share, and a search that found both cores busy waited for it.
 */
import { setPriority } from 'node:os';

/** The lowest scheduling priority (nice 19): the thread runs on what the others leave idle. */
export const BACKGROUND_NICE = 19;

/**
 * Lowers the calling thread's scheduling priority, and says whether it did. Only on Linux, where a
 * nice value belongs to one thread (`setpriority(PRIO_PROCESS, 0)` is the calling thread); elsewhere
 * it is the whole process's, the node's own thread with it, so the thread is left as it is.
 */
export function yieldCoresToForeground(): boolean {
  if (process.platform !== 'linux') return false;
  try {
    setPriority(BACKGROUND_NICE);
    return true;
  } catch {
    // A sandbox that forbids it: the work runs at the node's priority, as before.
    return false;
  }
}
