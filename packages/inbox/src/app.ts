/**
 * The composition root of one inbox: opens storage, wires the operation table to the doors, and
 * starts the job runner. Tests build it with their own clock and data folder.
 */
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import type { Clock } from './domain/types.js';
import { buildHttpServer } from './doors/rest/http-server.js';
import { JobRunner, SettingError, installSinkPage, isMailAddress, mailEnvironment, rateLimitScale, sinkMailer, smtpMailer, storageTarget, trustProxyFromSetting, type Mailer } from '@svc/shared';
import { loadIdentityKeys } from './domain/identity/identity-keys.js';
import { defaultFromAddress, type MailServices } from './domain/mail/mail-services.js';
import { NOTICE_JOB } from './domain/mail/notices.js';
import { SEND_MAIL_JOB } from './domain/mail/queued-mail.js';
import { noticeHandler, reminderHandler, sendMailHandler } from './jobs/mail-job.js';
import { REMINDER_JOB } from './domain/mail/reminders.js';
import { OWNER_MAIL_JOB, OWNER_NOTICE_RETENTION_MS, OWNER_PUSH_JOB } from './domain/notifications/owner-notices.js';
import { ownerMailHandler, ownerPushHandler } from './jobs/owner-notice-jobs.js';
import { loadVapidKeys } from './notifications/vapid-keys.js';
import { installEmailInbound } from './doors/rest/email-inbound-route.js';
import { ISSUE_JOB, OUTCOMES_JOB } from './domain/identity/item-identity.js';
import { issuePersonHandler, reportOutcomesHandler } from './networks/person-jobs.js';
import type { NetworkSigner } from './networks/person-client.js';
import { systemEventHandler } from './jobs/system-event-job.js';
import { FEED_IMPORT_JOB, feedImportHandler } from './jobs/feed-import-job.js';
import { DELAYED_RULE_JOB, RULES_JOB, delayedRuleHandler, rulesHandler } from './jobs/rules-job.js';
import { ACTIVITY_CHECK_EVERY_MS, CHANGE_JOB, PING_JOB, REGISTER_JOB, pingAfterActivity, pingHandler, registerHandler, scheduleNetworkRegistrations } from './networks/network-jobs.js';
import { LOG_CHECK_JOB, logCheckHandler } from './networks/log-check-job.js';
import { publishHandler } from './networks/receipt-publication-job.js';
import { PUBLISH_JOB } from './domain/receipts/publication-queue.js';
import { loadSecretBox } from './domain/secrets/secret-box.js';
import { SigningKeyRing, ensureSigningKey } from './domain/receipts/signing-keys.js';
import type { ReceiptSigning } from './domain/receipts/signing-keys.js';
import { sealedSettingsCodec } from './domain/settings/sealed-settings.js';
import { pruneOAuth, retireGrantsForOtherResources } from './domain/access/oauth/maintenance.js';
import { PRUNE_EVERY_MS as OAUTH_PRUNE_EVERY_MS } from './domain/access/oauth/oauth-limits.js';
import { OPERATIONS } from './operations/index.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { openInboxStore } from './store/kysely/kysely-inbox-store.js';
import type { InboxStore } from './store/store.js';
import type { SecretBox } from './domain/secrets/secret-box.js';

export const SOFTWARE_VERSION = '0.1.0';
/** Expired idempotency keys are deleted hourly. */
const IDEMPOTENCY_PRUNE_EVERY_MS = 3_600_000;
/** Webhook deliveries are kept thirty days (inbox spec §8), pruned hourly; events stay with their items. */
const DELIVERY_RETENTION_MS = 30 * 86_400_000;
const DELIVERY_PRUNE_EVERY_MS = 3_600_000;
const SIGNATURE_PRUNE_EVERY_MS = 600_000;

export interface InboxOptions {
  dataDir: string;
  /**
   * A postgres:// URL: the inbox's data in PostgreSQL, which several inbox processes may share
   * (docs/storage.md). Default: INBOX_DATABASE_URL, else `inbox.sqlite` in the data folder.
   */
  databaseUrl?: string | null;
  publicBaseUrl: string;
  clock?: Clock;
  logLevel?: string;
  /** Where log lines go (tests capture them); standard output when absent. */
  logStream?: { write(line: string): void };
  /** Multiplies the burst budgets (docs/security.md); 0 turns them off. Default: INBOX_RATE_LIMIT, else 1. */
  rateLimit?: number;
  /** Proxies whose X-Forwarded-For names the client. Default: TRUST_PROXY, else none. */
  trustProxy?: boolean | number | string[];
  /** Development: report to directory networks on 127.0.0.1 over http. */
  allowLocalNetworks?: boolean;
  /** Development: add and fetch product feeds on 127.0.0.1 over http. Off by default. */
  allowLocalFeeds?: boolean;
  /** Development: register and send webhooks to 127.0.0.1 over http. Off by default. */
  allowLocalWebhooks?: boolean;
  /** Development and tests: push subscriptions whose endpoint is on 127.0.0.1 over http. Off by default. */
  allowLocalPush?: boolean;
  /** Start the webhook dispatcher (default: as runJobs; tests may drain it by hand). */
  runWebhooks?: boolean;
  /** Where mail goes; by default SMTP at INBOX_SMTP_URL, else the development sink under the data folder (docs/mail.md). */
  mailer?: Mailer;
  /** The sender address; INBOX_MAIL_FROM, else inbox@<public host>. */
  mailFrom?: string;
  /** Start the background job loop (tests may drive jobs by hand). */
  runJobs?: boolean;
  /** The dispatcher's send timeout, its safety-net poll and, on PostgreSQL, its delivery lease (tests change them; docs/webhooks.md). */
  webhookTimings?: { timeoutMs?: number; leaseMs?: number; pollIntervalMs?: number };
  jobPollIntervalMs?: number;
}

export interface Inbox {
  http: FastifyInstance;
  store: InboxStore;
  jobs: JobRunner<InboxStore>;
  /** Sends the webhook outbox (docs/webhooks.md). */
  webhooks: WebhookDispatcher;
  clock: Clock;
  secrets: SecretBox;
  /** Signs receipts (docs/receipts.md); tests move items in their own transactions with it. */
  receipts: ReceiptSigning;
  /** Outbound mail: the mailer (SMTP or the sink) and the sender (docs/mail.md). */
  mail: MailServices;
  close(): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now() };

export async function buildInbox(options: InboxOptions): Promise<Inbox> {
  const clock = options.clock ?? systemClock;
  const logLevel = options.logLevel ?? process.env.LOG_LEVEL ?? 'info';
  const secrets = loadSecretBox(options.dataDir);
  const target = storageTarget(options.databaseUrl === undefined ? process.env.INBOX_DATABASE_URL : options.databaseUrl, join(options.dataDir, 'inbox.sqlite'), 'INBOX_DATABASE_URL');
  const store = await openInboxStore(target, { settingsCodec: sealedSettingsCodec(secrets) });
  // The receipt key is made at first start; one this instance can no longer open is replaced (docs/receipts.md).
  const signingKey = await ensureSigningKey(store, secrets, clock.now());
  const allowLocalFeeds = options.allowLocalFeeds ?? false;
  const config = {
    publicBaseUrl: options.publicBaseUrl.replace(/\/$/, ''),
    softwareVersion: SOFTWARE_VERSION,
    allowLocalFeeds,
    allowLocalWebhooks: options.allowLocalWebhooks ?? false,
    allowLocalNetworks: options.allowLocalNetworks ?? false,
    allowLocalPush: options.allowLocalPush ?? false,
    pushPublicKey: undefined as string | undefined,
  };
  // Mail: SMTP when set, else the development sink; the pepper keys codes, addresses and reply tokens (docs/mail.md).
  const identityKeys = await loadIdentityKeys(store, secrets, clock.now());
  // Web Push: the instance's VAPID pair, made once and kept sealed (docs/web.md "Push").
  const vapid = await loadVapidKeys(store, secrets, clock.now());
  config.pushPublicKey = vapid.keys.publicKey;
  const mailSettings = mailEnvironment('INBOX', defaultFromAddress(config.publicBaseUrl));
  const fromAddress = options.mailFrom ?? mailSettings.from;
  if (!isMailAddress(fromAddress)) throw new SettingError(`INBOX_MAIL_FROM must be a plain mail address, such as inbox@salon.example, not ${fromAddress}`);
  const sinkFolder = join(options.dataDir, 'mail');
  const mailer =
    options.mailer ??
    (mailSettings.smtpUrl ? smtpMailer({ url: mailSettings.smtpUrl, from: fromAddress }) : sinkMailer(sinkFolder, fromAddress, `${config.publicBaseUrl}/dev/mail`));
  const mail: MailServices = { mailer, fromAddress, keys: identityKeys, publicBaseUrl: config.publicBaseUrl };
  // Calls to networks about customers are signed with the receipt key; without one the identity says cannot_sign.
  const networkSigner = async (): Promise<NetworkSigner | null> => {
    try {
      const key = await receipts.keys.active(store);
      return { instance: receipts.issuer, privateJwk: key.privateJwk, allowLocal: config.allowLocalNetworks, now: () => clock.now() };
    } catch {
      return null;
    }
  };
  // Receipts name this instance by its origin (docs/receipts.md "Claims").
  const receipts: ReceiptSigning = { issuer: new URL(config.publicBaseUrl).origin, keys: new SigningKeyRing(secrets) };
  const http = buildHttpServer({
    deps: {
      store,
      clock,
      config,
      validateOutput: process.env.VALIDATE_OUTPUT === '1',
      secrets,
      receipts,
      identity: { keys: identityKeys, mailHost: fromAddress.slice(fromAddress.lastIndexOf('@') + 1) },
      networkSigner,
    },
    operations: OPERATIONS,
    logLevel,
    storageHealth: store.storageHealth,
    rateLimitScale: options.rateLimit ?? rateLimitScale(process.env.INBOX_RATE_LIMIT, 'INBOX_RATE_LIMIT'),
    trustProxy: options.trustProxy ?? trustProxyFromSetting(process.env.TRUST_PROXY),
    // Development: agents' platforms on 127.0.0.1 under the same setting as local networks.
    allowLocalAgents: config.allowLocalNetworks,
    ...(options.logStream ? { logStream: options.logStream } : {}),
  });
  // A disk that refuses writes is logged once when it starts and once when it ends (docs/security.md).
  store.storageHealth.logTo((level, message, detail) => http.log[level]({ storage: detail }, message));
  installEmailInbound(http, { domain: () => ({ store, clock, receipts }), keys: identityKeys });
  if (mailer.kind === 'sink' && !options.mailer) installSinkPage(http, sinkFolder);
  if (vapid.replaced) http.log.warn('The push key could not be opened with this secret key; a new one was made, and browsers that had turned on notifications must turn them on again.');
  if (signingKey === 'replaced') http.log.warn('The signing key could not be opened with this secret key; a new one was made. Receipts signed before stay verifiable by their published keys.');
  const webhooks = new WebhookDispatcher({
    store,
    clock,
    secrets,
    publicBaseUrl: config.publicBaseUrl,
    allowLocal: config.allowLocalWebhooks,
    log: (message, detail) => http.log.warn({ err: detail }, message),
    ...options.webhookTimings,
  });
  const reporting = { publicBaseUrl: config.publicBaseUrl, softwareVersion: SOFTWARE_VERSION, allowLocalNetworks: config.allowLocalNetworks };
  // Registration, pings and publication are signed with the receipt key (docs/receipts.md).
  const networkCaller = { store, clock, reporting, signing: receipts };
  const jobs = new JobRunner(
    store,
    clock,
    {
      'item.system_event': systemEventHandler(clock, receipts),
      [RULES_JOB]: rulesHandler(clock, receipts),
      [DELAYED_RULE_JOB]: delayedRuleHandler(clock, receipts),
      [REGISTER_JOB]: registerHandler(networkCaller),
      [PING_JOB]: pingHandler(networkCaller),
      // A change to what it publishes is a ping too, sooner (domain/publishing/published-change.ts).
      [CHANGE_JOB]: pingHandler(networkCaller),
      [LOG_CHECK_JOB]: logCheckHandler(networkCaller),
      [PUBLISH_JOB]: publishHandler(networkCaller),
      [FEED_IMPORT_JOB]: feedImportHandler({ store, clock, secrets, allowLocalFeeds }),
      [NOTICE_JOB]: noticeHandler(store, clock, mail),
      [SEND_MAIL_JOB]: sendMailHandler(store, clock, mail, secrets),
      [REMINDER_JOB]: reminderHandler(store, clock, mail),
      [OWNER_MAIL_JOB]: ownerMailHandler(store, clock, mail),
      [OWNER_PUSH_JOB]: ownerPushHandler(store, clock, mail, () => ({ vapid: vapid.keys, subject: `mailto:${fromAddress}`, allowLocal: config.allowLocalPush })),
      [ISSUE_JOB]: issuePersonHandler(store, clock, networkSigner),
      [OUTCOMES_JOB]: reportOutcomesHandler(store, networkSigner),
    },
    (message, detail) => http.log.warn({ err: detail }, message),
    {
      pollIntervalMs: options.jobPollIntervalMs ?? 1_000,
      chores: [
        { everyMs: IDEMPOTENCY_PRUNE_EVERY_MS, run: async (nowMs) => void (await store.idempotency.prune(nowMs)) },
        { everyMs: OAUTH_PRUNE_EVERY_MS, run: (nowMs) => pruneOAuth(store, nowMs) },
        { everyMs: DELIVERY_PRUNE_EVERY_MS, run: async (nowMs) => void (await store.webhooks.pruneDeliveries(nowMs - DELIVERY_RETENTION_MS)) },
        // Signatures of changes are remembered until they expire (plus a minute), then forgotten.
        { everyMs: SIGNATURE_PRUNE_EVERY_MS, run: async (nowMs) => void (await store.identity.pruneSignatures(nowMs)) },
        // New items since a network's last ping: pinged now, so its activity counts are minutes old (network-jobs.ts).
        { everyMs: ACTIVITY_CHECK_EVERY_MS, run: (nowMs) => pingAfterActivity(store, nowMs) },
        { everyMs: DELIVERY_PRUNE_EVERY_MS, run: async (nowMs) => void (await store.notifications.pruneNotices(nowMs - OWNER_NOTICE_RETENTION_MS)) },
      ],
    },
  );
  await scheduleNetworkRegistrations(store, clock.now());
  await retireGrantsForOtherResources(store, config.publicBaseUrl, clock.now());
  if (options.runJobs ?? true) jobs.start();
  if (options.runWebhooks ?? options.runJobs ?? true) await webhooks.start();
  return {
    http,
    store,
    jobs,
    webhooks,
    clock,
    secrets,
    receipts,
    mail,
    async close() {
      await jobs.stop();
      await webhooks.stop();
      await http.close();
      mailer.close();
      await store.close();
    },
  };
}
