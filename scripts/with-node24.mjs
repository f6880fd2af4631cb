// Runs a command with Node 24 first on PATH, fetched once from the npm registry (the `node-<os>-<arch>`
// packages carry the official binaries) into .tools/. CI runs the whole suite this way as well as on
// the machine's own Node; anyone on an older Node can do the same:
//   node scripts/with-node24.mjs npm start
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

const VERSION = '24.21.0';
const command = process.argv.slice(2);
if (command.length === 0) {
  console.error('usage: node scripts/with-node24.mjs <command> [args...]');
  process.exit(2);
}

let binDir = null;
if (process.versions.node === VERSION) {
  binDir = null; // already the wanted Node: run the command as it is
} else if (process.platform === 'linux' || process.platform === 'darwin') {
  const pkg = `node-${process.platform}-${process.arch}`;
  const prefix = resolve('.tools', `node-${VERSION}`);
  binDir = join(prefix, 'node_modules', pkg, 'bin');
  if (!existsSync(join(binDir, 'node'))) {
    console.log(`Fetching Node ${VERSION} (${pkg}) from the npm registry into .tools/ ...`);
    mkdirSync(prefix, { recursive: true });
    // A package.json of its own, so npm does not take the repository's workspaces for this folder's.
    writeFileSync(join(prefix, 'package.json'), JSON.stringify({ name: 'node-runtime', private: true }) + '\n');
    const fetched = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', `${pkg}@${VERSION}`], { cwd: prefix, stdio: 'inherit' });
    if (fetched.status !== 0 || !existsSync(join(binDir, 'node'))) {
      console.error(`could not install ${pkg}@${VERSION}`);
      process.exit(1);
    }
  }
} else {
  console.error(`no Node ${VERSION} package for ${process.platform}; install Node 24 from nodejs.org`);
  process.exit(1);
}

const env = { ...process.env };
if (binDir) env.PATH = `${binDir}${delimiter}${env.PATH ?? ''}`;
const run = spawnSync(command[0], command.slice(1), { stdio: 'inherit', env });
process.exit(run.status ?? 1);
