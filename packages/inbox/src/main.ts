/** Starts an inbox from the environment, with a demo business on first start (used by `npm start`). */
import { ListenError, SettingError, describeStorage, listenOrExplain, storageTarget } from '@svc/shared';
import { join } from 'node:path';
import { buildInbox, type Inbox } from './app.js';
import { readEnvironment } from './config.js';
import { createOwnerKey } from './domain/access/api-keys.js';
import { loadSettings } from './domain/context.js';
import { networkOrigin } from './domain/settings/network-origins.js';
import { applySettingsWrite } from './domain/settings/settings-document.js';
import { seedDemoBusiness, seedDemoOwnerAddress } from './demo/seed-demo.js';
import { scheduleNetworkRegistrations } from './networks/network-jobs.js';

export async function startInboxFromEnvironment(environment: NodeJS.ProcessEnv = process.env): Promise<{ inbox: Inbox; lines: string[]; keyLines: string[] }> {
  const env = readEnvironment(environment);
  const directoryOrigin = env.directoryUrl ? directoryNetwork(env.directoryUrl, env.allowLocalNetworks) : null;
  const inbox = await buildInbox({
    dataDir: env.dataDir,
    databaseUrl: env.databaseUrl,
    publicBaseUrl: env.publicBaseUrl,
    logLevel: env.logLevel,
    allowLocalNetworks: env.allowLocalNetworks,
    allowLocalFeeds: env.allowLocalFeeds,
    allowLocalWebhooks: env.allowLocalWebhooks,
    allowLocalPush: env.allowLocalPush,
    // Jobs start once the server listens, so a network verifying us finds us up.
    runJobs: false,
  });
  const nowMs = inbox.clock.now();
  const seeded = env.seedDemo ? await seedDemoBusiness({ store: inbox.store, clock: inbox.clock }) : false;
  if (seeded) await seedDemoOwnerAddress({ store: inbox.store, clock: inbox.clock });

  if (directoryOrigin !== null) {
    const origin = directoryOrigin;
    const current = await loadSettings(inbox.store);
    // Only added once: an owner who later turns the network off keeps it off.
    if (!(origin in current.settings.networks)) {
      // The network of the start issues keys to first-time customers (docs/identity.md); the owner may turn it off.
      const next = applySettingsWrite(current.stored, { networks: { [origin]: { enabled: true, issue: true } } }, { allowLocalNetworks: env.allowLocalNetworks });
      await inbox.store.settings.put(next, current.version === 0 ? null : current.version, nowMs);
    }
    await scheduleNetworkRegistrations(inbox.store, nowMs);
  }

  // The first owner key is made only once the inbox listens: a start that cannot listen makes none it could not show.
  const needsKey = (await inbox.store.apiKeys.countActive('owner', nowMs)) === 0;
  try {
    await listenOrExplain(inbox.http, { host: env.host, port: env.port, service: 'inbox', portSetting: 'INBOX_PORT', hostSetting: 'INBOX_HOST' });
  } catch (error) {
    await inbox.close();
    if (error instanceof ListenError && needsKey) {
      throw new ListenError(`${error.message} No owner key was made yet: it is made and shown at the first start that listens.`, error.code, { cause: error.cause });
    }
    throw error;
  }
  const firstKey = needsKey ? await createOwnerKey(inbox.store, 'First owner key', inbox.clock.now()) : null;
  inbox.jobs.start();
  await inbox.webhooks.start();

  const base = env.publicBaseUrl;
  const { security, notifications } = (await loadSettings(inbox.store)).settings;
  const lines = [
    `Business inbox running at ${base}`,
    `  data folder      ${env.dataDir}${seeded ? ' (demo business "Salão Aurora" created)' : ''}`,
    `  database         ${describeStorage(storageTarget(env.databaseUrl, join(env.dataDir, 'inbox.sqlite'), 'INBOX_DATABASE_URL'))}`,
    `  manifest         ${base}/.well-known/agent-inbox.json`,
    `  OpenAPI          ${base}/openapi.json   agent guide ${base}/docs/agents`,
    `  public REST      ${base}/v1/business, ${base}/v1/services, ${base}/v1/products`,
    `  owner REST       ${base}/v1/owner/items  (Authorization: Bearer <owner key>)`,
    `  MCP              ${base}/mcp (public)   ${base}/mcp/owner (owner: Bearer key, or OAuth 2.1 for AI apps)`,
    `  webhooks, events ${base}/v1/owner/webhooks   ${base}/v1/owner/events`,
    `  health           ${base}/healthz`,
    `  owner app        ${base}/app  (sign in once with the owner key)`,
    // Said at every start (docs/mail.md): where customer mail goes, and the mail door.
    `  mail             ${inbox.mail.mailer.describe}; from ${inbox.mail.fromAddress} (INBOX_SMTP_URL, INBOX_MAIL_FROM)`,
    `  email door       POST ${base}/v1/email/inbound (raw MIME; header X-Inbox-Email-Secret = settings email.inboundSecret)`,
    // Said at every start (docs/mail.md "The owner's notices"): where the owner hears of new requests.
    notifications.ownerEmail
      ? `  owner notices    mailed to ${notifications.ownerEmail}${inbox.mail.mailer.kind === 'sink' ? ` (so into the sink: ${base}/dev/mail)` : ''}; push to browsers turned on in ${base}/app/setup/notifications`
      : `  owner notices    none by mail (no address yet); set one, or turn on push, in ${base}/app/setup/notifications`,
    // Said plainly at every start (docs/keys-and-scopes.md): logged-first is the contract's default.
    security.enforceScopes
      ? '  scopes           ENFORCED: calls outside a key\'s or AI app\'s scopes are refused (403) and recorded'
      : '  scopes           recorded, NOT enforced: calls outside a key\'s scopes go through and are listed on the key; turn on security.enforceScopes in the owner app (Setup › Settings) to refuse them',
    ...(firstKey ? [] : ['  owner key        made at first start; make another with: npm run new-owner-key']),
  ];
  // The first key is shown once: a block of its own, printed last, so it stands apart from the log lines.
  const rule = '='.repeat(72);
  const keyLines = firstKey
    ? [
        rule,
        '  YOUR OWNER KEY (shown only this once; keep it somewhere safe):',
        '',
        `    ${firstKey.value}`,
        '',
        '  Use it as Authorization: Bearer <key> on /v1/owner/* and /mcp/owner, and to approve AI apps.',
        '  Lost it? npm run new-owner-key makes another.',
        rule,
      ]
    : [];
  return { inbox, lines, keyLines };
}

/** The network origin of INBOX_DIRECTORY_URL; a URL that names no network (docs/security.md "Strict inputs") stops the start, saying why. */
function directoryNetwork(directoryUrl: string, allowLocalNetworks: boolean): string {
  const checked = networkOrigin(new URL(directoryUrl).origin, { allowLocalNetworks });
  if ('origin' in checked) return checked.origin;
  throw new SettingError(`INBOX_DIRECTORY_URL ${directoryUrl}: a network ${checked.problem} (INBOX_ALLOW_LOCAL_NETWORKS=true allows http on 127.0.0.1 in development).`);
}
