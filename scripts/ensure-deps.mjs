// Installs dependencies when they are missing or the lock file changed since the last install.
// Plain Node with no dependencies, so it runs on a fresh clone before anything is installed.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const manifests = ['package.json', 'package-lock.json', ...readdirSync('packages').map((name) => `packages/${name}/package.json`)];
const fingerprint = createHash('sha256');
for (const file of manifests) if (existsSync(file)) fingerprint.update(readFileSync(file));
const wanted = fingerprint.digest('hex');
const stampFile = 'node_modules/.svc-deps-stamp';

if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === wanted) process.exit(0);

console.log('Installing dependencies (the first time this builds better-sqlite3, about two minutes)...');
const command = existsSync('package-lock.json') ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund'];
const result = spawnSync('npm', command, { stdio: 'inherit' });
if (result.status !== 0) {
  console.error(`npm ${command[0]} failed`);
  process.exit(result.status ?? 1);
}
writeFileSync(stampFile, wanted);
