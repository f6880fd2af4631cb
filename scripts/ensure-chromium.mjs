// Makes sure a Chromium exists for the browser tests (packages/*/test/browser-*.test.ts).
// Present (/usr/bin/chromium, /usr/lib/chromium/chromium or CHROMIUM_PATH): says nothing. Missing:
// installs Debian's `chromium` when it can (root, apt-get), else says in one line that the browser
// tests will be skipped and why. Always exits 0: the tests themselves decide (REQUIRE_BROWSER=1 fails them).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const candidates = [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium'].filter(Boolean);
const found = () => candidates.some((path) => existsSync(path));

if (found()) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = existsSync('/etc/debian_version') && spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;

if (!isRoot || !hasApt) {
  const why = !hasApt ? 'this is not Debian with apt-get' : 'installing it needs root';
  const where = process.env.CHROMIUM_PATH ? `CHROMIUM_PATH=${process.env.CHROMIUM_PATH} does not exist and ` : '';
  console.log(`ensure-chromium: no Chromium found (${where}/usr/bin/chromium missing) and ${why}: browser tests will be skipped (set CHROMIUM_PATH to run them).`);
  process.exit(0);
}

console.log('ensure-chromium: no Chromium found; installing Debian\'s chromium with apt-get (as root)');
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
const install = () => spawnSync('apt-get', ['install', '-y', '-q', 'chromium'], { stdio: ['ignore', 'ignore', 'inherit'], env }).status === 0;
let installed = install();
if (!installed) {
  // The package lists may be missing or stale (a fresh container): refresh them once, then retry.
  spawnSync('apt-get', ['update', '-q'], { stdio: ['ignore', 'ignore', 'inherit'], env });
  installed = install();
}
if (!installed || !found()) {
  console.log('ensure-chromium: apt-get could not install chromium: browser tests will be skipped (set CHROMIUM_PATH to run them).');
}
process.exit(0);
