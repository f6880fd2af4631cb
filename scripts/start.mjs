// `npm start`: the directory network at http://127.0.0.1:8080 and a business inbox at
// http://127.0.0.1:8787 that registers itself with it, on embedded defaults (see README.md).
import { startDirectoryFromEnvironment } from '@svc/directory';
import { startInboxFromEnvironment } from '@svc/inbox';

const env = process.env;
const directoryPort = env.DIRECTORY_PORT || '8080';
const directoryHost = env.DIRECTORY_HOST || '127.0.0.1';
// The local pair talks over http on 127.0.0.1: allowed here, off by default in each service.
env.DIRECTORY_ALLOW_LOCAL_INBOXES ??= 'true';
env.INBOX_ALLOW_LOCAL_NETWORKS ??= 'true';
env.INBOX_DIRECTORY_URL ??= env.DIRECTORY_PUBLIC_URL || `http://${directoryHost}:${directoryPort}`;

/** Ends the start: a refusal that says what to do (a port in use: ListenError) as it is, anything else with its stack. */
async function stop(error, ...running) {
  await Promise.allSettled(running.map((service) => service.close()));
  const text = error?.name === 'ListenError' ? error.message : (error?.stack ?? String(error));
  process.stderr.write(`\nnpm start stopped: ${text}\n`);
  process.exit(1);
}

const { directory, lines: directoryLines } = await startDirectoryFromEnvironment(env).catch((error) => stop(error));
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
    '',
    // Last, after every startup log line, so the one-time owner key is not lost among them.
    ...(keyLines.length > 0 ? [...keyLines, ''] : []),
  ].join('\n') + '\n',
);

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    void Promise.allSettled([inbox.close(), directory.close()]).then(() => process.exit(0));
  });
}
