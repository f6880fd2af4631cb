/**
 * The composition root of the directory: storage, the vocabulary, the search service, the job
 * runner (manifest verification and refresh) and the HTTP server. Tests build it with their own
 * clock and data folder.
 */
import { JobRunner, SettingError, installSinkPage, isMailAddress, mailEnvironment, rateLimitScale, sinkMailer, smtpMailer, poolSizeOf, storageTarget, trustProxyFromSetting, type Mailer, type StorageTarget } from '@svc/shared';
import { loadNetworkPepper } from './domain/persons/network-pepper.js';
import { networkHost, type PersonsDeps } from './domain/persons/persons.js';
import { installPersonRoutes } from './doors/rest/person-routes.js';
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import { answerWorkerYoungMbFromEnvironment, answerWorkersFromEnvironment } from './config.js';
import type { DirectoryContext, DirectorySettings } from './domain/context.js';
import { HOUR_MS } from './domain/ranking/hourly-order.js';
import { VERIFY_JOB, verificationHandler } from './domain/registration/instances.js';
import { ListingSync } from './domain/receipts/listing-sync.js';
import { ReputationSnapshots, SNAPSHOT_JOB, scheduleSnapshots, snapshotHandler } from './domain/reputation/snapshot.js';
import { InstanceKeys } from './domain/signed/instance-keys.js';
import { BusinessViews } from './domain/search/business-views.js';
import { DirectorySearch, PREPARE_AHEAD_MS } from './domain/search/search-service.js';
import { IndexSnapshots } from './domain/search/index-snapshot.js';
import { CATEGORIES_VERSION } from './domain/vocab/groups.js';
import { categoryKeysOf, categoryPath, categoryWordsOf, resolveManifestCategories } from './domain/vocab/vocabulary-hooks.js';
import { loadTaxonomy } from './domain/vocab/taxonomy.js';
import { listingPageRenderer } from './listing-pages.js';
import { buildDirectoryHttp } from './doors/rest/http-server.js';
import { DIRECTORY_OPERATIONS } from './operations/index.js';
import { openDirectoryStore } from './store/kysely/kysely-directory-store.js';
import { DIRECTORY_CACHE_KIB } from './store/kysely/database.js';
import { AnswerWorkers } from './workers/answer-workers.js';
import { CheckService, DEFAULT_CHECK_SETTINGS, type CheckSettings } from './domain/checks/check-service.js';
import { NetworkStats } from './domain/stats/network-stats.js';
import { CheckWorker } from './checks/check-worker.js';
import { readOwnerChoice } from './checks/owner-file.js';
import { defaultCrawlerSettings } from './checks/site-fetcher.js';
import type { DirectoryStore } from './store/store.js';
import { loadNetworkKey } from './domain/evidence/network-key.js';
import { HEAD_EVERY_MS, VerifiableOrder } from './domain/evidence/verifiable-order.js';
import { orderTreeHasher } from './workers/order-tree-workers.js';
import { BUSY_SEARCHES, CollectionOnceBusy, CollectionWhenIdle, NODE_IDLE_MS, releaseFreedHeapPages } from './heap-pages.js';

export const DIRECTORY_VERSION = '0.1.0';

export interface DirectoryOptions {
  dataDir: string;
  /**
   * A postgres:// URL: listings, pages, registrations and jobs in PostgreSQL (docs/storage.md).
   * Default: DIRECTORY_DATABASE_URL, else `directory.sqlite` in the data folder.
   */
  databaseUrl?: string | null;
  baseUrl: string;
  allowLocalInboxes?: boolean;
  clock?: { now(): number };
  logLevel?: string;
  /** Where log lines go (tests capture them); standard output when absent. */
  logStream?: { write(line: string): void };
  /** Multiplies the burst budgets (docs/security.md); 0 turns them off. Default: DIRECTORY_RATE_LIMIT, else 1. */
  rateLimit?: number;
  /** Proxies whose X-Forwarded-For names the client. Default: TRUST_PROXY, else none. */
  trustProxy?: boolean | number | string[];
  runJobs?: boolean;
  jobPollIntervalMs?: number;
  /** Prepare each hour's order on the hour (off in tests that move the clock by hand). */
  hourlyTimer?: boolean;
  /** Keep recent search answers as the contract allows (default on; DIRECTORY_ANSWER_CACHE=off). */
  cacheAnswers?: boolean;
  /** How long a search may run before it answers 503 (10 s; tests shorten it). */
  searchDeadlineMs?: number;
  /** Where mail to persons goes (their keys); by default SMTP at DIRECTORY_SMTP_URL, else a sink under the data folder. */
  mailer?: Mailer;
  /** Worker threads assembling search answers (DIRECTORY_ANSWER_WORKERS; default one fewer than the cores, at least 1, at most 4; 0: on the server's thread). */
  answerWorkers?: number;
  /** How long an answer worker may take before its answer is made on the server's thread (2 s; tests on a loaded machine lengthen it). */
  answerTimeoutMs?: number;
  /** The agentic check's settings (docs/checks.md); defaults, with DIRECTORY_CHECK_* read by main.ts. */
  checks?: Partial<CheckSettings>;
  /** Run checks in the background (default: with runJobs). */
  runChecks?: boolean;
  /** The hour changes in place (default); false builds the index again at the hour when a listing changed (bench/directory-hour.ts compares). */
  hourInPlace?: boolean;
  /** false: the next hour's order is sorted and the index laid out at the change rather than before the hour (benchmarks compare). */
  prepareAhead?: boolean;
  /**
   * Start from the newest snapshot of the index in the database and write one after building it
   * (default on; DIRECTORY_INDEX_SNAPSHOTS=off builds from the listings at every start, as before).
   */
  indexSnapshots?: boolean;
  /** Orders of at least this many places have their statement's tree hashed on a worker thread (50,000; tests lower it). */
  orderTreeWorkerFrom?: number;
  /**
   * After a start, an index built at the change or a rebuild, hand back the heap pages that work
   * freed (heap-pages.ts: two memory-reducing collections, 100–160 ms at 1 M). On in a node started
   * by main.ts; off by default, so tests that start many directories in one process do not pay for it.
   */
  releaseHeapPages?: boolean;
}

export interface Directory {
  http: FastifyInstance;
  store: DirectoryStore;
  search: DirectorySearch;
  /** Each business's detail view, kept between reads (business-views.ts). */
  businesses: BusinessViews;
  /** The nightly reputation snapshots (also run by their job at each midnight). */
  snapshots: ReputationSnapshots;
  /** The evidence log, the network's key and the hours' statements. */
  order: VerifiableOrder;
  jobs: JobRunner<DirectoryStore>;
  /** Starts the job runner (when built with runJobs: false, e.g. to load the demo first). */
  startJobs(): void;
  context: DirectoryContext;
  /** The agentic check: results, the queue, boards and counts. */
  checks: CheckService;
  /** Runs queued checks (started with runChecks; `drain()` runs them to the end). */
  checkWorker: CheckWorker;
  /** The worker threads assembling search answers; null when answers are assembled on the server's thread. */
  answerWorkers: AnswerWorkers | null;
  /** Settles when every listed listing has a current search-result page (rendered at start when missing or stale); gives how many were rendered. */
  pagesReady: Promise<number>;
  /** Where mail to persons goes. */
  mailer: Mailer;
  close(): Promise<void>;
}

/** Connections the server's own pool keeps beside the answer workers' (writes, jobs, the change feed). */
const MIN_MAIN_CONNECTIONS = 2;
/**
 * Connections of each answer worker on PostgreSQL when the URL's `max` leaves room (one otherwise):
 * its page reads overlap rather than wait for each other's round trip (at 1 M on a loaded two-core
 * machine, 442–632 against 365–520 req/s uncached with one; docs/directory.md).
 */
const WORKER_CONNECTIONS = 2;

/**
 * On PostgreSQL the URL's `max` is every connection of the process (docs/storage.md): each answer
 * worker keeps `workerConnections` (two, or one when `max` is short), the hour's statement's worker
 * one when the server's pool still keeps MIN_MAIN_CONNECTIONS beside it, and the server's pool the
 * rest. `statementKeys`: where that worker reads the listings' keys (on SQLite the file itself;
 * null when no connection is left for it, and the node's thread reads them).
 */
export function shareConnections(target: StorageTarget, workers: number): { main: StorageTarget; workerConnections: number; statementKeys: StorageTarget | null } {
  if (target.engine !== 'postgres') return { main: target, workerConnections: 1, statementKeys: target };
  const max = poolSizeOf(target.url);
  if (workers > 0 && max - workers < MIN_MAIN_CONNECTIONS) {
    throw new SettingError(`DIRECTORY_DATABASE_URL: max=${max} leaves fewer than ${MIN_MAIN_CONNECTIONS} connections beside the ${workers} answer workers' (one each); raise max or lower DIRECTORY_ANSWER_WORKERS`);
  }
  const workerConnections = workers === 0 ? 1 : Math.max(1, Math.min(WORKER_CONNECTIONS, Math.floor((max - MIN_MAIN_CONNECTIONS) / workers)));
  const left = max - (workers === 0 ? 0 : workers * workerConnections);
  const statementKeys = left - 1 >= MIN_MAIN_CONNECTIONS ? { ...target, connections: 1 } : null;
  return { main: { ...target, connections: statementKeys ? left - 1 : left }, workerConnections, statementKeys };
}

export async function buildDirectory(options: DirectoryOptions): Promise<Directory> {
  const clock = options.clock ?? { now: () => Date.now() };
  const logLevel = options.logLevel ?? process.env.LOG_LEVEL ?? 'info';
  const workerCount = options.answerWorkers ?? answerWorkersFromEnvironment();
  // Read even without workers: a setting the node cannot take stops its start, whatever the others say.
  const workerYoungMb = answerWorkerYoungMbFromEnvironment();
  const { main: storage, workerConnections, statementKeys } = shareConnections(
    storageTarget(options.databaseUrl === undefined ? process.env.DIRECTORY_DATABASE_URL : options.databaseUrl, join(options.dataDir, 'directory.sqlite'), 'DIRECTORY_DATABASE_URL'),
    workerCount,
  );
  const baseUrl = options.baseUrl.replace(/\/$/, '');
  const pages = listingPageRenderer(baseUrl);
  const store = await openDirectoryStore(storage, { pages });
  const settings: DirectorySettings = {
    baseUrl,
    allowLocalInboxes: options.allowLocalInboxes ?? false,
    manifestTimeoutMs: 5_000,
    manifestMaxBytes: 256 * 1024,
  };
  const instanceKeys = new InstanceKeys({ settings, clock });
  // Listings follow their tallies about 50 ms after a receipt (and at every pass of the job runner).
  const listingSync = new ListingSync(store, clock, { delayMs: RECEIPTS_FOLLOW_MS });
  await listingSync.resumeAfterStart();
  const context: DirectoryContext = { store, clock, settings, resolveCategories: resolveManifestCategories, instanceKeys, receiptsChanged: (domain) => listingSync.changed(domain) };
  const answerWorkers =
    workerCount > 0
      ? new AnswerWorkers({
          count: workerCount,
          // On PostgreSQL `connections` is then each worker's own pool.
          storage: storage.engine === 'postgres' ? { ...storage, connections: workerConnections } : storage,
          pageVersion: pages.version,
          cacheKib: DIRECTORY_CACHE_KIB,
          youngGenerationMb: workerYoungMb,
          ...(options.answerTimeoutMs !== undefined ? { answerTimeoutMs: options.answerTimeoutMs } : {}),
          // Called only once the server runs (http is declared below).
          onError: (message, error) => http.log.warn({ err: error }, message),
        })
      : null;
  const snapshots = new ReputationSnapshots(context);
  // The evidence log, the network's key and each hour's signed statement (docs/verifiable-order.md).
  const order = new VerifiableOrder(context, loadNetworkKey(options.dataDir, baseUrl), orderTreeHasher(options.orderTreeWorkerFrom, statementKeys));
  // Its log, like afterHeavyWork's below, is written only once the server runs.
  const collectionOnceBusy = options.releaseHeapPages
    ? new CollectionOnceBusy({ onCollected: (busy) => http.log.info({ busy }, 'heap collected once searches flowed after the index work, so its next limit follows their pace') })
    : null;
  const collectionWhenIdle = options.releaseHeapPages
    ? new CollectionWhenIdle({
        idleMs: NODE_IDLE_MS,
        minWork: BUSY_SEARCHES,
        collect: () => http.log.info({ heap: releaseFreedHeapPages() }, 'heap pages handed back once searches paused'),
      })
    : null;
  const search = new DirectorySearch(context, { categoryKeysOf, categoryWordsOf, categoryPath }, {
    standings: (hourStart) => snapshots.standingsFor(hourStart),
    onOrder: async (hourStart, rules, facts, checks) => void (await order.statements.record(hourStart, rules.version, facts, checks)),
    cacheAnswers: options.cacheAnswers ?? process.env.DIRECTORY_ANSWER_CACHE !== 'off',
    ...(options.searchDeadlineMs !== undefined ? { deadlineMs: options.searchDeadlineMs } : {}),
    assembler: answerWorkers,
    ...(options.hourInPlace !== undefined ? { hourInPlace: options.hourInPlace } : {}),
    ...(options.prepareAhead !== undefined ? { prepareAhead: options.prepareAhead } : {}),
    snapshots: (options.indexSnapshots ?? process.env.DIRECTORY_INDEX_SNAPSHOTS !== 'off') ? new IndexSnapshots(store.indexSnapshots, `${loadTaxonomy().meta.release}+${CATEGORIES_VERSION}`, store.queriesOnServer) : null,
    // Called only once the server runs (http is declared below).
    afterHeavyWork: options.releaseHeapPages
      ? () => {
          http.log.info({ heap: releaseFreedHeapPages() }, 'heap pages freed by the index work handed back');
          collectionOnceBusy?.arm();
        }
      : null,
    onSearch:
      collectionOnceBusy && collectionWhenIdle
        ? () => {
            collectionOnceBusy.noteSearch();
            collectionWhenIdle.noteWork();
          }
        : null,
  });
  const businesses = new BusinessViews(context, search);
  const checkSettings: CheckSettings = { ...DEFAULT_CHECK_SETTINGS, ...(options.checks ?? {}) };
  const checks = new CheckService(context, checkSettings);
  const stats = new NetworkStats(context, search, checks);
  const crawler = defaultCrawlerSettings(baseUrl, checkSettings.localWeb);
  const http = buildDirectoryHttp({
    operations: DIRECTORY_OPERATIONS,
    context: { domain: context, search, businesses, checks, stats, order, readOwnerChoice: (domain) => readOwnerChoice(domain, crawler) },
    softwareVersion: DIRECTORY_VERSION,
    logLevel,
    storageHealth: store.storageHealth,
    rateLimitScale: options.rateLimit ?? rateLimitScale(process.env.DIRECTORY_RATE_LIMIT, 'DIRECTORY_RATE_LIMIT'),
    trustProxy: options.trustProxy ?? trustProxyFromSetting(process.env.TRUST_PROXY),
    ...(options.logStream ? { logStream: options.logStream } : {}),
    validateOutput: process.env.VALIDATE_OUTPUT === '1',
  });
  search.reportOrderFailures((error) => http.log.error({ err: error }, 'the hour\'s statement could not be made'));
  search.reportSnapshotFailures((error) => http.log.warn({ err: error }, 'the index snapshot could not be written'));
  // A disk that refuses writes is logged once when it starts and once when it ends (docs/security.md).
  store.storageHealth.logTo((level, message, detail) => http.log[level]({ storage: detail }, message));
  // Persons, keys and passes (docs/identity.md "The network side"); keys go out by mail.
  const host = networkHost(baseUrl);
  const mailSettings = mailEnvironment('DIRECTORY', /^[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$/i.test(new URL(baseUrl).hostname) ? `keys@${new URL(baseUrl).hostname}` : 'keys@network.localhost');
  if (!isMailAddress(mailSettings.from)) throw new SettingError(`DIRECTORY_MAIL_FROM must be a plain mail address, not ${mailSettings.from}`);
  const sinkFolder = join(options.dataDir, 'network-mail');
  const mailer = options.mailer ?? (mailSettings.smtpUrl ? smtpMailer({ url: mailSettings.smtpUrl, from: mailSettings.from }) : sinkMailer(sinkFolder, mailSettings.from, `${baseUrl}/dev/mail`));
  const persons: PersonsDeps = { ctx: context, pepper: loadNetworkPepper(options.dataDir), host, mailer, name: `The network at ${host}` };
  // Inboxes' calls about persons are verified like every other signed instance call (domain/signed/signed-call.ts).
  installPersonRoutes(http, persons);
  if (mailer.kind === 'sink' && !options.mailer) installSinkPage(http, sinkFolder);
  const jobs = new JobRunner<DirectoryStore>(
    store,
    clock,
    { [VERIFY_JOB]: verificationHandler(context), [SNAPSHOT_JOB]: snapshotHandler(snapshots, clock) },
    (message, detail) => http.log.warn({ err: detail }, message),
    {
      pollIntervalMs: options.jobPollIntervalMs ?? 1_000,
      // Signatures past their keeping time are forgotten (a replay is refused until expires + 60 s, docs/signatures.md).
      chores: [
        { everyMs: 600_000, run: async (nowMs) => void (await store.replays.prune(Math.floor(nowMs / 1000))) },
        // The evidence log's head is signed anew when it grew (and at every hour's statement).
        { everyMs: HEAD_EVERY_MS, run: async () => void (await order.signHead()) },
        // Listings waiting for their tally are also brought up to date at every pass.
        { everyMs: 0, run: async () => void (await listingSync.flush()) },
      ],
    },
  );
  // The nightly reputation snapshot: now for the last midnight if it was missed, else at the next.
  await scheduleSnapshots(store, clock.now());
  const checkWorker = new CheckWorker(checks, crawler, clock, {
    pollIntervalMs: options.jobPollIntervalMs ?? 1_000,
    log: (message, detail) => http.log.warn({ err: detail }, message),
  });
  const runChecks = options.runChecks ?? options.runJobs ?? true;
  // Both runners start together (main.ts builds with runJobs: false, loads the demo, then starts them).
  const startJobs = () => {
    jobs.start();
    if (options.runChecks ?? true) checkWorker.start();
  };
  if (options.runJobs ?? true) startJobs();
  else if (runChecks) checkWorker.start();

  let hourTimer: NodeJS.Timeout | null = null;
  let aheadTimer: NodeJS.Timeout | null = null;
  const scheduleHour = () => {
    const wait = HOUR_MS - (clock.now() % HOUR_MS) + 50;
    hourTimer = setTimeout(() => {
      void search.hour().catch((error) => http.log.error(error));
      scheduleHour();
    }, wait);
    hourTimer.unref();
  };
  // The next hour's order is sorted and the index laid out in it before the hour (search-service.ts PREPARE_AHEAD_MS).
  const scheduleAhead = () => {
    const untilHour = HOUR_MS - (clock.now() % HOUR_MS);
    const wait = (untilHour > PREPARE_AHEAD_MS ? untilHour - PREPARE_AHEAD_MS : untilHour + HOUR_MS - PREPARE_AHEAD_MS) + 50;
    aheadTimer = setTimeout(() => {
      void search.prepareNextHour();
      scheduleAhead();
    }, wait);
    aheadTimer.unref();
  };
  if (options.hourlyTimer ?? true) {
    scheduleHour();
    scheduleAhead();
  }
  // Until a listing's page is rendered, search renders it from its document: slower, same answer.
  const stopRefresh = new AbortController();
  const pagesReady = store.listings.refreshPages({ signal: stopRefresh.signal });
  pagesReady.catch((error: unknown) => http.log.error(error));

  return {
    http,
    store,
    search,
    businesses,
    snapshots,
    order,
    jobs,
    startJobs,
    context,
    checks,
    checkWorker,
    answerWorkers,
    pagesReady,
    mailer,
    async close() {
      if (hourTimer) clearTimeout(hourTimer);
      if (aheadTimer) clearTimeout(aheadTimer);
      listingSync.stop();
      await listingSync.flush().catch(() => 0);
      stopRefresh.abort();
      await pagesReady.catch(() => 0);
      await jobs.stop();
      await checkWorker.stop();
      await http.close();
      collectionWhenIdle?.stop();
      search.stopRebuilding();
      await search.settled().catch(() => 0);
      await answerWorkers?.close();
      mailer.close();
      // A snapshot being written is finished (a few seconds at 1 M), not left cut short.
      await search.snapshotWritten;
      await store.close();
    },
  };
}

/** How soon a listing follows a receipt taken (a burst of receipts makes one write per business). */
const RECEIPTS_FOLLOW_MS = 50;

export { listingPageRenderer } from './listing-pages.js';
