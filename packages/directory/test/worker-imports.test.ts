/**
 * An answer worker is a V8 heap of its own, one per core: what its modules import stays in that
 * heap for the node's life. Importing `@svc/shared` whole (its HTTP, MCP and signature modules) for
 * one text function held ~17 MB in each (docs/directory.md, "Freed heap pages handed back"); the
 * worker reaches the shared package only through its small entry points.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SOURCE = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
// Static imports only: a dynamic import() loads its module when the worker takes that path.
const STATIC_IMPORT = /^(?:import|export)\s[^;]*?from\s+'([^']+)'/gm;

function sourceOf(from: string, spec: string): string | null {
  const file = resolve(dirname(from), spec).replace(/\.js$/, '.ts');
  try {
    return statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

/** Every package a module reaches through static imports (type-only imports are erased), with the file that names it. */
function packagesReached(entry: string): Map<string, string> {
  const reached = new Map<string, string>();
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      if (/^(?:import|export)\s+type\s/.test(match[0])) continue;
      const spec = match[1]!;
      if (spec.startsWith('.')) {
        const next = sourceOf(file, spec);
        if (next) pending.push(next);
      } else if (!reached.has(spec)) reached.set(spec, file.slice(SOURCE.length + 1));
    }
  }
  return reached;
}

describe("an answer worker's modules", () => {
  it('reach the shared package only through its small entry points', () => {
    const reached = packagesReached(resolve(SOURCE, 'workers/answer-worker.ts'));
    expect(reached.has('node:worker_threads')).toBe(true);
    expect(reached.has('@svc/shared/sqlite-driver')).toBe(true);
    expect(reached.get('@svc/shared'), 'imports @svc/shared whole').toBeUndefined();
  });
});
