import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandLineExternalAccounting, commandLineHeapGrowing, v8CountsExternalMemoryFlag } from '../src/collector-setting.js';
import { readDirectoryEnvironment } from '../src/config.js';

const SETTING = new URL('../src/collector-setting.ts', import.meta.url).pathname;

/** Full collections in a node that allocates 1.5 GB of short-lived 64 KB buffers while 256 MB of them stay live. */
function fullCollections(withSetting: boolean, nodeFlags: string[] = []): { set: boolean; full: number } {
  const script = `
    import { PerformanceObserver, constants } from 'node:perf_hooks';
    import { countExternalMemoryInHeapLimit } from ${JSON.stringify(SETTING)};
    const set = ${withSetting} ? countExternalMemoryInHeapLimit() : false;
    let full = 0;
    new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++; }).observe({ entryTypes: ['gc'] });
    const live = Array.from({ length: 4096 }, () => Buffer.alloc(65536, 1));
    let sum = 0;
    for (let i = 0; i < 24000; i++) sum += Buffer.allocUnsafe(65536).length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    console.log(JSON.stringify({ set, full, kept: live.length, sum }));
  `;
  const out = execFileSync(process.execPath, [...nodeFlags, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as { set: boolean; full: number };
}

describe('the node counts memory outside the heap in the heap limit (where V8 can)', () => {
  it('knows which V8 versions have the flag', () => {
    expect(v8CountsExternalMemoryFlag('13.6.233.17-node.63')).toBe(true);
    expect(v8CountsExternalMemoryFlag('14.1.146.11-node.25')).toBe(true);
    expect(v8CountsExternalMemoryFlag('12.4.254.21-node.57')).toBe(false);
    expect(v8CountsExternalMemoryFlag('11.3.244.8-node.30')).toBe(false);
  });

  it('runs far fewer full collections for short-lived buffers where it is set, and changes nothing elsewhere', () => {
    const without = fullCollections(false);
    const withIt = fullCollections(true);
    expect(withIt.set).toBe(v8CountsExternalMemoryFlag());
    if (withIt.set) {
      expect(without.full).toBeGreaterThan(10);
      expect(withIt.full).toBeLessThan(without.full / 3);
    } else {
      // Older V8 (Node 20, 22): its own accounting, left as it is.
      expect(Math.abs(withIt.full - without.full)).toBeLessThanOrEqual(Math.max(2, without.full / 2));
    }
  }, 60_000);

  it('reads an operator\'s yes or no to the flag from the command line, the last one counting', () => {
    expect(commandLineExternalAccounting(['--max-old-space-size=16000', '--import', 'tsx'])).toBeNull();
    expect(commandLineExternalAccounting(['--external-memory-accounted-in-global-limit'])).toBe(true);
    expect(commandLineExternalAccounting(['--no-external_memory_accounted_in_global_limit'])).toBe(false);
    expect(commandLineExternalAccounting(['--noexternal-memory-accounted-in-global-limit'])).toBe(false);
    expect(commandLineExternalAccounting(['--no-external-memory-accounted-in-global-limit', '--external-memory-accounted-in-global-limit'])).toBe(true);
    // A longer flag that starts the same is another flag.
    expect(commandLineExternalAccounting(['--external-memory-accounted-in-global-limit-x'])).toBeNull();
  });

  it.runIf(v8CountsExternalMemoryFlag())('leaves an operator\'s --no- on the command line as it is', () => {
    const without = fullCollections(false);
    const refused = fullCollections(true, ['--no-external-memory-accounted-in-global-limit']);
    expect(refused.set).toBe(false);
    expect(refused.full).toBeGreaterThan(without.full / 2);
  }, 60_000);
});

/**
 * Full collections in a node that, like a node answering searches, keeps some 320 MB live and makes
 * for each of 6,000 turns of its event loop a 150 KB buffer and some objects that outlive a few turns,
 * its collector set as a node's start sets it with `growingPercent`.
 */
function collectionsWhileServing(growingPercent: number | null, nodeFlags: string[] = []): { setting: { externalInHeapLimit: boolean; heapGrowingPercent: number | null }; full: number } {
  const script = `
    import { PerformanceObserver, constants } from 'node:perf_hooks';
    import { tuneCollectorForServing } from ${JSON.stringify(SETTING)};
    const setting = tuneCollectorForServing(${JSON.stringify(growingPercent)});
    let full = 0;
    new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++; }).observe({ entryTypes: ['gc'] });
    const live = Array.from({ length: 4096 }, () => Buffer.alloc(65536, 1));
    const kept = Array.from({ length: 200000 }, (_, k) => ({ k, name: 'x' + k }));
    const recent = new Array(64);
    for (let i = 0; i < 6000; i++) {
      recent[i % 64] = { bytes: Buffer.allocUnsafe(150000).fill(1), rows: Array.from({ length: 300 }, (_, k) => ({ k })) };
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    console.log(JSON.stringify({ setting, full, live: live.length + kept.length }));
  `;
  const out = execFileSync(process.execPath, [...nodeFlags, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as ReturnType<typeof collectionsWhileServing>;
}

describe('an operator can bound how far the heap limit grows while memory outside the heap counts in it', () => {
  it.runIf(v8CountsExternalMemoryFlag())('collects the whole heap several times as often with DIRECTORY_HEAP_GROWING_PERCENT=20 as with V8\'s own factor', () => {
    const own = collectionsWhileServing(null);
    const bounded = collectionsWhileServing(20);
    expect(own.setting).toEqual({ externalInHeapLimit: true, heapGrowingPercent: null });
    expect(bounded.setting).toEqual({ externalInHeapLimit: true, heapGrowingPercent: 20 });
    expect(bounded.full).toBeGreaterThanOrEqual(3 * Math.max(1, own.full));
  }, 60_000);

  it.runIf(v8CountsExternalMemoryFlag())('leaves a --heap-growing-percent on the node\'s command line as it is', () => {
    const chosen = collectionsWhileServing(20, ['--heap-growing-percent=0']);
    expect(chosen.setting).toEqual({ externalInHeapLimit: true, heapGrowingPercent: null });
  }, 60_000);

  it.runIf(v8CountsExternalMemoryFlag())('leaves V8\'s growing factor as it is where the operator turned the accounting off', () => {
    const refused = collectionsWhileServing(20, ['--no-external-memory-accounted-in-global-limit']);
    expect(refused.setting).toEqual({ externalInHeapLimit: false, heapGrowingPercent: null });
  }, 60_000);

  it.skipIf(v8CountsExternalMemoryFlag())('changes nothing on a V8 without the accounting (Node 20, 22)', () => {
    expect(collectionsWhileServing(20).setting).toEqual({ externalInHeapLimit: false, heapGrowingPercent: null });
  }, 60_000);

  it('reads --heap-growing-percent from the command line, in either spelling', () => {
    expect(commandLineHeapGrowing(['--max-old-space-size=16000'])).toBe(false);
    expect(commandLineHeapGrowing(['--heap-growing-percent=50'])).toBe(true);
    expect(commandLineHeapGrowing(['--heap_growing_percent=0'])).toBe(true);
    expect(commandLineHeapGrowing(['--heap-growing-percent-x=1'])).toBe(false);
  });

  it('reads DIRECTORY_HEAP_GROWING_PERCENT as a whole number from 1 to 400, unset by default', () => {
    expect(readDirectoryEnvironment({}).heapGrowingPercent).toBeNull();
    expect(readDirectoryEnvironment({ DIRECTORY_HEAP_GROWING_PERCENT: '' }).heapGrowingPercent).toBeNull();
    expect(readDirectoryEnvironment({ DIRECTORY_HEAP_GROWING_PERCENT: '20' }).heapGrowingPercent).toBe(20);
    for (const wrong of ['0', '401', '12.5', 'twenty', '-5']) {
      expect(() => readDirectoryEnvironment({ DIRECTORY_HEAP_GROWING_PERCENT: wrong })).toThrow(`DIRECTORY_HEAP_GROWING_PERCENT must be a whole number from 1 to 400, not ${wrong}`);
    }
  });
});
