// Installs dependencies when they are missing or their manifests changed since the last install.
// Plain Node with no dependencies, so it runs on a fresh clone before anything is installed.
// Node 22 and newer get better-sqlite3 13 (prebuilt, no compiler); Node 20 also gets better-sqlite3 12,
// built from source, in packages/shared/sqlite-node20 (see docs/decisions.md).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const OLDEST_NODE = 20;
const FIRST_NODE_FOR_CURRENT_SQLITE = 22;

if (NODE_MAJOR < OLDEST_NODE) {
  console.error(`Node ${process.versions.node} is too old: this project runs on Node 20, 22 or 24 (24 recommended).`);
  process.exit(1);
}

/** Runs `npm <args>` in `folder` unless the manifests are what the last successful install saw. */
function installWhenChanged(folder, manifests, args, message) {
  const fingerprint = createHash('sha256');
  for (const file of manifests) if (existsSync(file)) fingerprint.update(readFileSync(file));
  const wanted = fingerprint.digest('hex');
  const stampFile = join(folder, 'node_modules', '.svc-deps-stamp');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === wanted) return;
  console.log(message);
  const result = spawnSync('npm', args, { cwd: folder, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`npm ${args[0]} in ${folder} failed`);
    process.exit(result.status ?? 1);
  }
  writeFileSync(stampFile, wanted);
}

const workspaceManifests = ['package.json', 'package-lock.json', ...readdirSync('packages').map((name) => `packages/${name}/package.json`)];
installWhenChanged('.', workspaceManifests, [existsSync('package-lock.json') ? 'ci' : 'install', '--no-audit', '--no-fund'], 'Installing dependencies...');

if (NODE_MAJOR < FIRST_NODE_FOR_CURRENT_SQLITE) {
  const folder = 'packages/shared/sqlite-node20';
  installWhenChanged(
    folder,
    [`${folder}/package.json`, `${folder}/package-lock.json`, 'package.json'],
    ['ci', '--no-audit', '--no-fund'],
    `Node ${process.versions.node}: installing better-sqlite3 12 for it (built from source the first time, about two minutes; Node 22 or 24 needs no build)...`,
  );
}
