// Runs the whole vitest suite on SQLite, then every test file that opens a database (vitest.postgres.config.ts)
// on a throwaway PostgreSQL (scripts/postgres.mjs), and ends with the plain line CI reads:
// "N passed, N failed" over both. When no PostgreSQL can be started here the second run is skipped
// with one line saying why, unless REQUIRE_POSTGRES=1 (CI), where that is a failure. POSTGRES_PASS=skip
// leaves the second run out on purpose (CI's second Node runs it).
// Arguments go to both vitest runs (a file filter runs what it matches on each).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { startPostgres } from './postgres.mjs';

// The browser tests need a Chromium: installed here when missing and possible, else they skip (one line says why).
spawnSync(process.execPath, [new URL('./ensure-chromium.mjs', import.meta.url).pathname], { stdio: 'inherit' });

mkdirSync('.test-results', { recursive: true });
const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
delete env.TEST_POSTGRES_URL;

/** One vitest run; its passed and failed counts from its JSON report. */
function vitest(label, report, extraArgs, runEnv) {
  rmSync(report, { force: true });
  const started = Date.now();
  const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...extraArgs, ...process.argv.slice(2)];
  const run = spawnSync('npx', args, { stdio: 'inherit', env: runEnv });
  let passed = 0;
  let failed = 0;
  if (existsSync(report)) {
    const result = JSON.parse(readFileSync(report, 'utf8'));
    passed = result.numPassedTests;
    failed = result.numFailedTests + (result.numRuntimeErrorTestSuites ?? 0);
  } else {
    failed = 1;
  }
  if (run.status !== 0 && failed === 0) failed = 1;
  console.log(`${label}: ${passed} passed, ${failed} failed in ${Math.round((Date.now() - started) / 1000)} s`);
  return { passed, failed, ok: run.status === 0 && failed === 0 };
}

const runs = [vitest('sqlite', '.test-results/vitest.json', [], env)];

// CI runs the PostgreSQL pass on one of its two Nodes (the driver is the same JavaScript on both).
const pg = process.env.POSTGRES_PASS === 'skip' ? { url: null, reason: 'POSTGRES_PASS=skip (this run covers SQLite only)', skipped: true } : await startPostgres();
if (pg.skipped) {
  console.log(`postgres: PostgreSQL pass not run here: ${pg.reason}`);
} else if (pg.url) {
  console.log(`postgres: ${pg.version} on ${pg.url} (throwaway); every test file that opens a database again on it`);
  try {
    runs.push(vitest('postgres', '.test-results/vitest-postgres.json', ['--config', 'vitest.postgres.config.ts', '--passWithNoTests'], { ...env, TEST_POSTGRES_URL: pg.url }));
  } finally {
    pg.stop();
  }
} else if (process.env.REQUIRE_POSTGRES === '1') {
  console.log(`postgres: REQUIRE_POSTGRES=1 but no PostgreSQL could be started: ${pg.reason}`);
  runs.push({ passed: 0, failed: 1, ok: false });
} else {
  console.log(`postgres: PostgreSQL tests skipped: ${pg.reason} (set REQUIRE_POSTGRES=1 to make this a failure)`);
}

const passed = runs.reduce((sum, r) => sum + r.passed, 0);
const failed = runs.reduce((sum, r) => sum + r.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(runs.every((r) => r.ok) ? 0 : 1);
