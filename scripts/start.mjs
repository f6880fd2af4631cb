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

const { directory, lines: directoryLines } = await startDirectoryFromEnvironment(env);
const { inbox, lines: inboxLines, keyLines } = await startInboxFromEnvironment(env);

// Give the inbox a moment to register and be verified, then freeze this hour's order with it in.
const inboxDomain = new URL(env.INBOX_PUBLIC_URL || `http://${env.INBOX_HOST || '127.0.0.1'}:${env.INBOX_PORT || '8787'}`).host;
for (let waited = 0; waited < 8_000; waited += 250) {
  const instance = await directory.store.instances.get(inboxDomain);
  if (instance?.status === 'verified' && instance.lastPingAt !== null) break;
  await new Promise((resolve) => setTimeout(resolve, 250));
}
await directory.search.hour();
const instance = await directory.store.instances.get(inboxDomain);

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
