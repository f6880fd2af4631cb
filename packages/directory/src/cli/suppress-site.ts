/**
 * The operator suppresses a site, or lifts its suppression (docs/checks.md "Suppressed sites"):
 *   node packages/directory/dist/cli/suppress-site.js <domain> <reason…>   nothing of it kept, never checked, shown, ranked or counted
 *   node packages/directory/dist/cli/suppress-site.js --lift <domain>      checked again at once
 * It writes to the directory's database (DIRECTORY_DATABASE_URL, else the SQLite file under DATA_DIR;
 * the running service reads it at once: its documents are keyed by the checks' revision).
 */
import { join } from 'node:path';
import { storageTarget } from '@svc/shared';
import { listingPageRenderer } from '../app.js';
import { readDirectoryEnvironment } from '../config.js';
import { CheckService, DEFAULT_CHECK_SETTINGS } from '../domain/checks/check-service.js';
import { InstanceKeys } from '../domain/signed/instance-keys.js';
import { resolveManifestCategories } from '../domain/vocab/vocabulary-hooks.js';
import { openDirectoryStore } from '../store/kysely/kysely-directory-store.js';

const USAGE = 'usage: node packages/directory/dist/cli/suppress-site.js <domain> <reason…> | --lift <domain>';

async function main(args: string[]): Promise<number> {
  const lift = args[0] === '--lift';
  const [domain, ...words] = lift ? args.slice(1) : args;
  const reason = words.join(' ').trim();
  if (!domain || (!lift && reason === '')) {
    console.error(USAGE);
    return 2;
  }
  const env = readDirectoryEnvironment();
  const store = await openDirectoryStore(storageTarget(env.databaseUrl, join(env.dataDir, 'directory.sqlite'), 'DIRECTORY_DATABASE_URL'), { pages: listingPageRenderer(env.baseUrl) });
  try {
    const clock = { now: () => Date.now() };
    const settings = { baseUrl: env.baseUrl, allowLocalInboxes: env.allowLocalInboxes, manifestTimeoutMs: 5_000, manifestMaxBytes: 256 * 1024 };
    // No signed call comes through this command; the context holds a key cache all the same.
    const context = { store, clock, settings, resolveCategories: resolveManifestCategories, instanceKeys: new InstanceKeys({ settings, clock }) };
    const checks = new CheckService(context, { ...DEFAULT_CHECK_SETTINGS, ...env.checks });
    if (lift) {
      const lifted = await checks.lift(domain);
      console.log(lifted ? `${domain}: suppression lifted; a check is queued` : `${domain} was not suppressed`);
    } else {
      console.log(`${await checks.suppress(domain, reason)}: suppressed`);
    }
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  } finally {
    await store.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
