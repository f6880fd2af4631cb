import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { v8CountsExternalMemoryFlag } from '../src/collector-setting.js';

const MAIN = new URL('../src/main.ts', import.meta.url).pathname;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The lines a directory started as `npm start` starts it prints, with `env` added to its environment. */
function startLines(env: Record<string, string>, nodeFlags: string[] = []): string[] {
  const dataDir = mkdtempSync(join(tmpdir(), 'directory-memory-setting-'));
  dirs.push(dataDir);
  const script = `
    import { startDirectoryFromEnvironment } from ${JSON.stringify(MAIN)};
    const { directory, lines } = await startDirectoryFromEnvironment();
    console.log(JSON.stringify(lines));
    await directory.close();
    process.exit(0);
  `;
  const out = execFileSync(process.execPath, [...nodeFlags, '--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, DATA_DIR: dataDir, DIRECTORY_PORT: '0', DIRECTORY_SEED_DEMO: 'false', DIRECTORY_CHECKS: 'off', LOG_LEVEL: 'silent', ...env },
  });
  return JSON.parse(out.trim().split('\n').pop()!) as string[];
}

describe('a directory started with DIRECTORY_HEAP_GROWING_PERCENT says what became of it', () => {
  it('says nothing of memory when the setting is absent', () => {
    expect(startLines({}).some((line) => line.trim().startsWith('memory'))).toBe(false);
  }, 60_000);

  it('names the bound where this Node can hold it, and says it is not used where it cannot', () => {
    const line = startLines({ DIRECTORY_HEAP_GROWING_PERCENT: '25' }).find((l) => l.trim().startsWith('memory'));
    if (v8CountsExternalMemoryFlag()) expect(line).toContain('a full garbage collection at 25% over what is live');
    else expect(line).toContain("DIRECTORY_HEAP_GROWING_PERCENT=25 not used: this Node's V8");
  }, 60_000);

  it.runIf(v8CountsExternalMemoryFlag())('leaves --heap-growing-percent on the command line in charge, and says so', () => {
    const line = startLines({ DIRECTORY_HEAP_GROWING_PERCENT: '25' }, ['--heap-growing-percent=0']).find((l) => l.trim().startsWith('memory'));
    expect(line).toContain('not used: --heap-growing-percent on the command line holds');
  }, 60_000);

  it('refuses a percent outside 1–400 before it starts anything', () => {
    expect(() => startLines({ DIRECTORY_HEAP_GROWING_PERCENT: '0' })).toThrow(/DIRECTORY_HEAP_GROWING_PERCENT must be a whole number from 1 to 400, not 0/);
  }, 60_000);
});
