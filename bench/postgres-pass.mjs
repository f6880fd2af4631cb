// How long the PostgreSQL pass of `npm test` takes (issue 36), against its baseline in the same run:
// the hand list of 45 files the pass ran before the rule (read from vitest.postgres.config.ts at a
// git revision, 2026-11-29's aee0492 by default), then every file the rule takes now
// (test-support/postgres-suites.ts), both with the tests and harnesses of the tree as it is (what
// differs is which files run). Each on a throwaway PostgreSQL of its own, with vitest's settings as
// `npm test` uses them. Prints the wall time, the tests run and the load average around
// each; a busy machine makes the times long, so run it on a quiet one.
//
//   node bench/postgres-pass.mjs [--baseline-rev aee0492] [--only rule|baseline]
import { execFileSync, spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { startPostgres } from '../scripts/postgres.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const baselineRev = option('baseline-rev', 'aee0492');
const only = option('only', null);

/** The hand list of a revision's vitest.postgres.config.ts. */
function baselineFiles() {
  const config = execFileSync('git', ['show', `${baselineRev}:vitest.postgres.config.ts`], { encoding: 'utf8' });
  return [...config.matchAll(/'(packages\/[^']+\.test\.ts)'/g)].map((m) => m[1]);
}

/** One pass over `files` (none: every file the rule takes) on a server of its own. */
async function run(label, files) {
  const server = await startPostgres({ quiet: true });
  if (!server.url) throw new Error(`no PostgreSQL: ${server.reason}`);
  mkdirSync('.test-results', { recursive: true });
  const report = `.test-results/postgres-pass-${label}.json`;
  rmSync(report, { force: true });
  const loadBefore = loadavg()[0];
  const started = Date.now();
  try {
    spawnSync('npx', ['vitest', 'run', '--config', 'vitest.postgres.config.ts', '--reporter=dot', '--reporter=json', `--outputFile.json=${report}`, ...files], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, TEST_POSTGRES_URL: server.url, NO_COLOR: '1' },
    });
  } finally {
    server.stop();
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  const result = JSON.parse(readFileSync(report, 'utf8'));
  return { label, files: result.numTotalTestSuites, seconds, passed: result.numPassedTests, failed: result.numFailedTests, load: `${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)}` };
}

const rows = [];
if (only !== 'rule') rows.push(await run('baseline', baselineFiles()));
// No file filter: every file the rule takes.
if (only !== 'baseline') rows.push(await run('rule', []));
for (const row of rows) {
  console.log(`${row.label}: ${row.files} files, ${row.passed} passed, ${row.failed} failed, ${row.seconds} s (load average ${row.load})`);
}
