/**
 * Test harness: a real inbox on a temporary data folder, listening on 127.0.0.1 with an ephemeral
 * port, a movable clock, the demo business and an owner key. Tests talk to it over real HTTP.
 */
import { TestClock as SharedClock, jsonClient, type ApiResponse } from '../../../../test-support/http-client.js';
import { dropTestDatabase, expectFittingValues, testDatabaseUrl } from '../../../../test-support/test-database.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Mailer } from '@svc/shared';
import { buildInbox, type Inbox } from '../../src/app.js';
import { createOwnerKey } from '../../src/domain/access/api-keys.js';
import { seedDemoBusiness } from '../../src/demo/seed-demo.js';

/** A clock tests move by hand. Defaults to 2026-11-23T10:00:00Z, a Monday. */
export class TestClock extends SharedClock {
  constructor(start: string | number = '2026-11-23T10:00:00Z') {
    super(start);
  }
}

export type { ApiResponse };

export interface TestInbox {
  inbox: Inbox;
  baseUrl: string;
  dataDir: string;
  ownerKey: string;
  clock: TestClock;
  /** A request with a JSON body (if any); the body of the answer is parsed when it is JSON. */
  request<T = any>(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string>; rawBody?: string }): Promise<ApiResponse<T>>;
  /** The same with the owner's Bearer key. */
  owner<T = any>(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  /** Stops the server; keeps the data folder unless `removeData`. */
  close(options?: { removeData?: boolean }): Promise<void>;
}

export interface StartOptions {
  clock?: TestClock;
  dataDir?: string;
  seed?: boolean;
  runJobs?: boolean;
  ownerKey?: string;
  /** Log lines (info and up) go here; the inbox logs nothing when absent. */
  logStream?: { write(line: string): void };
  /** Development peers on 127.0.0.1 (networks, agents' platforms). */
  allowLocalNetworks?: boolean;
  /** Burst budgets' scale (0, the tests' default, turns them off). */
  rateLimit?: number;
  /** Where mail goes (an SMTP mailer of the test); the development sink under the data folder when absent. */
  mailer?: Mailer;
  /** Push subscriptions whose endpoint is on 127.0.0.1 over http (a test's push service). */
  allowLocalPush?: boolean;
}

export async function startInbox(options: StartOptions = {}): Promise<TestInbox> {
  const clock = options.clock ?? new TestClock();
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'inbox-test-'));
  const inbox = await buildInbox({
    dataDir,
    // PostgreSQL runs (TEST_POSTGRES_URL): the data folder's own database; otherwise its SQLite file.
    databaseUrl: await testDatabaseUrl('inbox', dataDir),
    publicBaseUrl: 'http://127.0.0.1',
    clock,
    logLevel: options.logStream ? 'info' : 'silent',
    ...(options.logStream ? { logStream: options.logStream } : {}),
    runJobs: options.runJobs ?? false,
    jobPollIntervalMs: 50,
    ...(options.allowLocalNetworks !== undefined ? { allowLocalNetworks: options.allowLocalNetworks } : {}),
    ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
    ...(options.mailer ? { mailer: options.mailer, mailFrom: 'inbox@salon.example' } : {}),
    ...(options.allowLocalPush !== undefined ? { allowLocalPush: options.allowLocalPush } : {}),
  });
  if (options.seed ?? true) await seedDemoBusiness({ store: inbox.store, clock });
  const ownerKey = options.ownerKey ?? (await createOwnerKey(inbox.store, 'test owner', clock.now())).value;
  const address = await inbox.http.listen({ host: '127.0.0.1', port: 0 });

  const request: TestInbox['request'] = jsonClient(address);

  return {
    inbox,
    baseUrl: address,
    dataDir,
    ownerKey,
    clock,
    request,
    owner: (method, path, opts = {}) =>
      request(method, path, { ...opts, headers: { authorization: `Bearer ${ownerKey}`, ...(opts.headers ?? {}) } }),
    async close(closeOptions = {}) {
      await inbox.close();
      // A value SQLite kept that PostgreSQL would refuse (a fraction in a bigint column) fails the test.
      const misfit = await expectFittingValues('inbox', dataDir).then(() => null, (error: unknown) => error);
      if (closeOptions.removeData ?? true) {
        rmSync(dataDir, { recursive: true, force: true });
        await dropTestDatabase('inbox', dataDir);
      }
      if (misfit) throw misfit;
    },
  };
}

/** A booking request for the demo's haircut (45 min, fixed 25.00 EUR) at a free time. */
export function haircutAt(startTime: string, extra: Record<string, unknown> = {}) {
  return { payload: { serviceId: 'haircut', startTime, ...extra }, contact: { name: 'Ana Silva', email: 'ana@example.com' } };
}
