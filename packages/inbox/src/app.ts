/**
 * The composition root of one inbox: opens storage, wires the operation table to the doors, and
 * starts the job runner. Tests build it with their own clock and data folder.
 */
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import type { Clock } from './domain/types.js';
import { buildHttpServer } from './doors/rest/http-server.js';
import { JobRunner } from '@svc/shared';
import { systemEventHandler } from './jobs/system-event-job.js';
import { PING_JOB, REGISTER_JOB, pingHandler, registerHandler, scheduleNetworkRegistrations } from './networks/network-jobs.js';
import { loadSecretBox } from './domain/secrets/secret-box.js';
import { OPERATIONS } from './operations/index.js';
import { openSqliteStore } from './store/kysely/kysely-inbox-store.js';
import type { InboxStore } from './store/store.js';
import type { SecretBox } from './domain/secrets/secret-box.js';

export const SOFTWARE_VERSION = '0.1.0';
/** Expired idempotency keys are deleted hourly. */
const IDEMPOTENCY_PRUNE_EVERY_MS = 3_600_000;

export interface InboxOptions {
  dataDir: string;
  publicBaseUrl: string;
  clock?: Clock;
  logLevel?: string;
  /** Development: report to directory networks on 127.0.0.1 over http. */
  allowLocalNetworks?: boolean;
  /** Start the background job loop (tests may drive jobs by hand). */
  runJobs?: boolean;
  jobPollIntervalMs?: number;
}

export interface Inbox {
  http: FastifyInstance;
  store: InboxStore;
  jobs: JobRunner<InboxStore>;
  clock: Clock;
  secrets: SecretBox;
  close(): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now() };

export async function buildInbox(options: InboxOptions): Promise<Inbox> {
  const clock = options.clock ?? systemClock;
  const logLevel = options.logLevel ?? process.env.LOG_LEVEL ?? 'info';
  const store = await openSqliteStore(join(options.dataDir, 'inbox.sqlite'));
  const secrets = loadSecretBox(options.dataDir);
  const config = { publicBaseUrl: options.publicBaseUrl.replace(/\/$/, ''), softwareVersion: SOFTWARE_VERSION };
  const http = buildHttpServer({
    deps: { store, clock, config, validateOutput: process.env.VALIDATE_OUTPUT === '1', secrets },
    operations: OPERATIONS,
    logLevel,
  });
  const reporting = { publicBaseUrl: config.publicBaseUrl, softwareVersion: SOFTWARE_VERSION, allowLocalNetworks: options.allowLocalNetworks ?? false };
  const jobs = new JobRunner(
    store,
    clock,
    {
      'item.system_event': systemEventHandler(clock),
      [REGISTER_JOB]: registerHandler(store, clock, reporting),
      [PING_JOB]: pingHandler(store, clock, reporting),
    },
    (message, detail) => http.log.warn({ err: detail }, message),
    {
      pollIntervalMs: options.jobPollIntervalMs ?? 1_000,
      chores: [{ everyMs: IDEMPOTENCY_PRUNE_EVERY_MS, run: async (nowMs) => void (await store.idempotency.prune(nowMs)) }],
    },
  );
  await scheduleNetworkRegistrations(store, clock.now());
  if (options.runJobs ?? true) jobs.start();
  return {
    http,
    store,
    jobs,
    clock,
    secrets,
    async close() {
      await jobs.stop();
      await http.close();
      await store.close();
    },
  };
}
