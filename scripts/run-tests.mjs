// Runs the whole vitest suite and ends with the plain line CI reads: "N passed, N failed".
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';

// The browser tests need a Chromium: installed here when missing and possible, else they skip (one line says why).
spawnSync(process.execPath, [new URL('./ensure-chromium.mjs', import.meta.url).pathname], { stdio: 'inherit' });

mkdirSync('.test-results', { recursive: true });
const report = '.test-results/vitest.json';
const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)];
const run = spawnSync('npx', args, { stdio: 'inherit', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });

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
console.log(`${passed} passed, ${failed} failed`);
process.exit(run.status === 0 && failed === 0 ? 0 : 1);
