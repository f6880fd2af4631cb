// `npm start`: the directory network at http://127.0.0.1:8080 and a business inbox at
// http://127.0.0.1:8787 that registers itself with it, on embedded defaults (see README.md).
import { SAMPLE_SITES, startDirectoryFromEnvironment, startLocalWeb } from '@svc/directory';
import { startInboxFromEnvironment } from '@svc/inbox';
import { whyStartStopped } from '@svc/shared';

const env = process.env;
const directoryPort = env.DIRECTORY_PORT || '8080';
const directoryHost = env.DIRECTORY_HOST || '127.0.0.1';
// The local pair talks over http on 127.0.0.1: allowed here, off by default in each service.
env.DIRECTORY_ALLOW_LOCAL_INBOXES ??= 'true';
env.INBOX_ALLOW_LOCAL_NETWORKS ??= 'true';
env.INBOX_DIRECTORY_URL ??= env.DIRECTORY_PUBLIC_URL || `http://${directoryHost}:${directoryPort}`;

/** Ends the start, saying why (a refusal in its own words, anything else with its stack: whyStartStopped). */
async function stop(error, ...running) {
  await Promise.allSettled(running.map((service) => service.close()));
  process.stderr.write(`\nnpm start stopped: ${whyStartStopped(error)}\n`);
  process.exit(1);
}

// The local web of sample business sites (development only: the directory reaches it through
// DIRECTORY_CHECK_LOCAL_WEB, off by default), so the agentic check, the leaderboard and found
// listings have real sites to read. DIRECTORY_LOCAL_WEB=off leaves it out.
const localWeb = env.DIRECTORY_LOCAL_WEB === 'off' ? null : await startLocalWeb({ port: Number(env.DIRECTORY_LOCAL_WEB_PORT || 0) }).catch((error) => stop(error));
if (localWeb) env.DIRECTORY_CHECK_LOCAL_WEB ??= localWeb.address;

const { directory, lines: directoryLines } = await startDirectoryFromEnvironment(env).catch((error) => stop(error, ...(localWeb ? [localWeb] : [])));
// The inbox makes its first owner key only once it listens; if it cannot, it says why and makes none.
const { inbox, lines: inboxLines, keyLines } = await startInboxFromEnvironment(env).catch((error) => stop(error, directory));

// Give the inbox a moment to register and be verified, then freeze this hour's order with it in.
const inboxDomain = new URL(env.INBOX_PUBLIC_URL || `http://${env.INBOX_HOST || '127.0.0.1'}:${env.INBOX_PORT || '8787'}`).host;
let instance;
try {
  for (let waited = 0; waited < 8_000; waited += 250) {
    instance = await directory.store.instances.get(inboxDomain);
    if (instance?.status === 'verified' && instance.lastPingAt !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  // Check every sample site now (the operator's own checks: no caller budget), the well-behaved ones
  // first, so the leaderboard, the found listings and the stats counts are real results: the start
  // waits for them a few seconds at most (DIRECTORY_LOCAL_WEB_WAIT_MS), the rest finish in the
  // background (the slow and huge sites take the crawler's full timeouts).
  if (localWeb && env.DIRECTORY_CHECK_LOCAL_WEB === localWeb.address) {
    for (const site of SAMPLE_SITES.filter((s) => !s.slow)) await directory.checks.schedule(site.host);
    const checked = directory.checkWorker.drain(120_000).catch(() => undefined);
    const waitMs = Number(env.DIRECTORY_LOCAL_WEB_WAIT_MS || 2_500);
    await Promise.race([checked, new Promise((resolve) => setTimeout(resolve, waitMs).unref())]);
    for (const site of SAMPLE_SITES.filter((s) => s.slow)) await directory.checks.schedule(site.host);
  }
  await directory.search.hour();
  instance = await directory.store.instances.get(inboxDomain);
} catch (error) {
  // The key was made: it is shown even when the start goes no further.
  if (keyLines.length > 0) process.stdout.write(['', ...keyLines, ''].join('\n') + '\n');
  await stop(error, inbox, directory);
}

process.stdout.write(
  [
    '',
    ...inboxLines,
    '',
    ...directoryLines,
    `  the inbox        ${inboxDomain}: ${instance?.status ?? 'not registered'} in the directory`,
    ...(localWeb
      ? [`  local web        ${SAMPLE_SITES.length} sample sites on ${localWeb.address} (names under .test, development only), checked at start: ${directory.context.settings.baseUrl}/leaderboard.json`]
      : []),
    '',
    // Last, after every startup log line, so the one-time owner key is not lost among them.
    ...(keyLines.length > 0 ? [...keyLines, ''] : []),
  ].join('\n') + '\n',
);

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    void Promise.allSettled([inbox.close(), directory.close(), ...(localWeb ? [localWeb.close()] : [])]).then(() => process.exit(0));
  });
}
