// Runs a command with the newest Node 24 first on PATH, fetched once from the npm registry (the
// `node-<os>-<arch>` packages carry the official binaries) into .tools/. CI runs the whole suite this
// way as well as on the machine's own Node; anyone on an older Node can do the same:
//   node scripts/with-node24.mjs npm start
//   node scripts/with-node24.mjs --which     (prints the Node 24 it would use, fetching nothing)
// "The newest": what a user installing Node 24 today gets, so CI meets what users meet (a newer 24
// once checked JWK key pairs before our own code did). The registry is asked at most once a day; when
// it cannot be reached, the newest Node 24 already in .tools/ is used.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

const MAJOR = 24;
/** How long the registry's answer is trusted before it is asked again. */
const LOOKUP_KEPT_MS = 24 * 60 * 60 * 1000;
const args = process.argv.slice(2);
const whichOnly = args[0] === '--which';
const command = whichOnly ? [] : args;
if (!whichOnly && command.length === 0) {
  console.error('usage: node scripts/with-node24.mjs <command> [args...] | --which');
  process.exit(2);
}
if (process.platform !== 'linux' && process.platform !== 'darwin') {
  console.error(`no Node ${MAJOR} package for ${process.platform}; install Node ${MAJOR} from nodejs.org`);
  process.exit(1);
}

const pkg = `node-${process.platform}-${process.arch}`;
const tools = resolve('.tools');
const binDirOf = (version) => join(tools, `node-${version}`, 'node_modules', pkg, 'bin');

/** Compares dotted versions numerically (24.9.0 < 24.10.0). */
function compareVersions(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i += 1) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

/** The newest plain release `MAJOR.x.y` in a list (no pre-releases). */
function newest(versions) {
  const releases = versions.filter((v) => new RegExp(`^${MAJOR}\\.\\d+\\.\\d+$`).test(v));
  return releases.sort(compareVersions).at(-1) ?? null;
}

/** The newest Node 24 the registry has, asked at most once a day; null when it cannot be asked. */
function newestOnRegistry() {
  const cacheFile = join(tools, `node${MAJOR}-newest.json`);
  if (existsSync(cacheFile)) {
    try {
      const cached = JSON.parse(readFileSync(cacheFile, 'utf8'));
      if (cached.pkg === pkg && Date.now() - cached.checkedAt < LOOKUP_KEPT_MS && typeof cached.version === 'string') return cached.version;
    } catch {
      // Unreadable: ask again.
    }
  }
  const asked = spawnSync('npm', ['view', pkg, 'versions', '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (asked.status !== 0) return null;
  let version = null;
  try {
    const listed = JSON.parse(asked.stdout);
    version = newest(Array.isArray(listed) ? listed : [listed]);
  } catch {
    return null;
  }
  if (version) {
    mkdirSync(tools, { recursive: true });
    writeFileSync(cacheFile, `${JSON.stringify({ pkg, version, checkedAt: Date.now() })}\n`);
  }
  return version;
}

/** The newest Node 24 already fetched into .tools/, for when the registry cannot be reached. */
function newestInstalled() {
  if (!existsSync(tools)) return null;
  const versions = readdirSync(tools)
    .map((name) => /^node-(\d+\.\d+\.\d+)$/.exec(name)?.[1])
    .filter((v) => v !== undefined && existsSync(join(binDirOf(v), 'node')));
  return newest(versions);
}

const version = newestOnRegistry() ?? newestInstalled();
if (!version) {
  console.error(`could not find a Node ${MAJOR} release: the npm registry did not answer and none is in .tools/`);
  process.exit(1);
}
if (whichOnly) {
  console.log(version);
  process.exit(0);
}

let binDir = null;
if (process.versions.node !== version) {
  binDir = binDirOf(version);
  if (!existsSync(join(binDir, 'node'))) {
    const prefix = join(tools, `node-${version}`);
    console.log(`Fetching Node ${version} (${pkg}) from the npm registry into .tools/ ...`);
    mkdirSync(prefix, { recursive: true });
    // A package.json of its own, so npm does not take the repository's workspaces for this folder's.
    writeFileSync(join(prefix, 'package.json'), JSON.stringify({ name: 'node-runtime', private: true }) + '\n');
    const fetched = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', `${pkg}@${version}`], { cwd: prefix, stdio: 'inherit' });
    if (fetched.status !== 0 || !existsSync(join(binDir, 'node'))) {
      console.error(`could not install ${pkg}@${version}`);
      process.exit(1);
    }
  }
}

const env = { ...process.env };
if (binDir) env.PATH = `${binDir}${delimiter}${env.PATH ?? ''}`;
const run = spawnSync(command[0], command.slice(1), { stdio: 'inherit', env });
process.exit(run.status ?? 1);
