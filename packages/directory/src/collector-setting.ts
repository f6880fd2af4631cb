/**
 * How V8 decides when to collect the whole heap, set once when a node starts. Node 24's V8 still
 * starts a full collection for every few dozen MB allocated outside the heap (buffers, typed
 * arrays), however much of that was already live: at 5 M listings, with some 3.5 GB of the index
 * outside the heap, that meant a full collection every ~100 searches. With
 * `--external-memory-accounted-in-global-limit` (the accounting newer V8 moves to) such memory
 * counts toward the heap's own limit, which grows with what is live. Measured in docs/directory.md,
 * "Full collections on the search path": far fewer collections, at the price of more memory held
 * between them, which an operator may bound (the growing percent below).
 */
import { setFlagsFromString } from 'node:v8';

/** Whether this V8 has the flag: V8 13 (Node 24) and 14 (Node 25); V8 12 (Node 22) and older do not. */
export function v8CountsExternalMemoryFlag(v8Version = process.versions.v8): boolean {
  const major = Number(v8Version.split('.')[0]);
  return major === 13 || major === 14;
}

const FLAG = 'external-memory-accounted-in-global-limit';

/** A command-line argument's V8 flag name, with dashes as V8 reads underscores too; null when it is no flag. */
function flagName(arg: string): string | null {
  return arg.startsWith('--') ? arg.slice(2).split('=')[0]!.replaceAll('_', '-') : null;
}

/**
 * What the node's command line says of the flag (`--FLAG` or `--no-FLAG`, with dashes or
 * underscores as V8 accepts; the last one counts): an operator's choice, left as it is. Null when it
 * says nothing. Node refuses the flag in NODE_OPTIONS, so the command line is the only place for it.
 */
export function commandLineExternalAccounting(execArgv: readonly string[] = process.execArgv): boolean | null {
  let choice: boolean | null = null;
  for (const arg of execArgv) {
    const name = flagName(arg);
    if (name === FLAG) choice = true;
    else if (name === `no-${FLAG}` || name === `no${FLAG}`) choice = false;
  }
  return choice;
}

/**
 * Sets the flag where this V8 has it (an unknown flag would only print an error), unless the
 * command line chose already. True when the node runs with it, set here or by the operator.
 */
export function countExternalMemoryInHeapLimit(execArgv: readonly string[] = process.execArgv): boolean {
  if (!v8CountsExternalMemoryFlag()) return false;
  const chosen = commandLineExternalAccounting(execArgv);
  if (chosen !== null) return chosen;
  setFlagsFromString(`--${FLAG}`);
  return true;
}

/**
 * How far the limit that starts V8's next full collection may grow over what the last one found
 * live, in percent, when an operator bounds it (DIRECTORY_HEAP_GROWING_PERCENT). With the accounting
 * above, V8's own factor (up to 4× after an idle spell) lets the searches' garbage outside the heap
 * pile up before it collects, and glibc keeps that high-water mark; a node's own collection once
 * searches flow (heap-pages.ts) takes the idle factor away. A fixed percent bounds it further, but
 * it applies to the heap's old generation too: at 5 M, 20 brought five times the full collections
 * and 2.5 times the searches' p99 (docs/directory.md, "Why memory grows as a node keeps
 * searching"). So it is an operator's choice, off unless set.
 */
const GROWING_FLAG = 'heap-growing-percent';

/** Whether the node's command line names `--heap-growing-percent` (an operator's choice, left as it is). */
export function commandLineHeapGrowing(execArgv: readonly string[] = process.execArgv): boolean {
  return execArgv.some((arg) => flagName(arg) === GROWING_FLAG);
}

export interface CollectorSetting {
  /** Memory outside the heap counts in the heap's limit (countExternalMemoryInHeapLimit). */
  externalInHeapLimit: boolean;
  /** The growing percent set here; null when V8's own factor (or the command line's choice) holds. */
  heapGrowingPercent: number | null;
}

/**
 * The collector as a serving node runs it: memory outside the heap counted in its limit and, when
 * `growingPercent` is given, that limit's growth bounded. The bound is set only where the accounting
 * is on: elsewhere (older V8, or the operator's `--no-`) V8's own trigger for memory outside the
 * heap already bounds that garbage.
 */
export function tuneCollectorForServing(growingPercent: number | null = null, execArgv: readonly string[] = process.execArgv): CollectorSetting {
  const externalInHeapLimit = countExternalMemoryInHeapLimit(execArgv);
  if (!externalInHeapLimit || growingPercent === null || commandLineHeapGrowing(execArgv)) return { externalInHeapLimit, heapGrowingPercent: null };
  setFlagsFromString(`--${GROWING_FLAG}=${growingPercent}`);
  return { externalInHeapLimit, heapGrowingPercent: growingPercent };
}
