/**
 * The storage-facing suites, run again on PostgreSQL by `npm test` (scripts/run-tests.mjs starts a
 * throwaway server and sets TEST_POSTGRES_URL; the harnesses then give every data folder a database
 * of its own). docs/storage.md says which and why. The whole suite runs on SQLite (vitest.config.ts).
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** Suites that store, claim, order or search through the store: what an engine can get wrong. */
export const POSTGRES_SUITES = [
  // the dialect layer itself: column types, query forms, retried transactions, concurrent job claims
  'packages/shared/test/storage-dialect.test.ts',
  // inbox: items and their races, idempotency, the event stream, webhooks, jobs, rules, search (q)
  'packages/inbox/test/multi-process.test.ts',
  'packages/inbox/test/races.test.ts',
  'packages/inbox/test/idempotency.test.ts',
  'packages/inbox/test/events.test.ts',
  'packages/inbox/test/webhooks.test.ts',
  'packages/inbox/test/webhooks-retries.test.ts',
  'packages/inbox/test/webhooks-crash.test.ts',
  // issue 35: each endpoint its own share beside a dead receiver, retries on time, two inboxes sending from one database
  'packages/inbox/test/webhooks-timing.test.ts',
  'packages/inbox/test/jobs.test.ts',
  'packages/inbox/test/transitions.test.ts',
  'packages/inbox/test/rules-run.test.ts',
  'packages/inbox/test/owner.test.ts',
  'packages/inbox/test/public-items.test.ts',
  'packages/inbox/test/receipts-issue.test.ts',
  'packages/inbox/test/receipts-keys.test.ts',
  'packages/inbox/test/settings.test.ts',
  'packages/inbox/test/api-keys.test.ts',
  'packages/inbox/test/feeds.test.ts',
  'packages/inbox/test/oauth-flow.test.ts',
  'packages/inbox/test/networks.test.ts',
  // inbox, from issues 11, 13, 15 and 16: nothing kept past another process's commit, receipt acknowledgements and publication, signed agents' signatures taken once, codes and their attempts, mail in and out, owner app sessions
  'packages/inbox/test/identity-store-races.test.ts',
  'packages/inbox/test/receipts-ack.test.ts',
  'packages/inbox/test/receipts-publication.test.ts',
  'packages/inbox/test/signed-agents.test.ts',
  'packages/inbox/test/verify-customer.test.ts',
  'packages/inbox/test/mail.test.ts',
  'packages/inbox/test/owner-app-http.test.ts',
  // inbox, issue 35: acknowledgements by a signed request (migration 0017); cause before effect in the stream and webhooks
  'packages/inbox/test/receipts-ack-signed.test.ts',
  'packages/inbox/test/event-order.test.ts',
  // directory: registration, listings and their revisions, the hour's order, search over the store, answer workers
  'packages/directory/test/store-concurrency.test.ts',
  'packages/directory/test/registration-http.test.ts',
  'packages/directory/test/end-to-end.test.ts',
  'packages/directory/test/search-http.test.ts',
  'packages/directory/test/mcp-revisions.test.ts',
  'packages/directory/test/published-order-http.test.ts',
  'packages/directory/test/stats-http.test.ts',
  'packages/directory/test/answer-workers.test.ts',
  'packages/directory/test/payments-vocab-http.test.ts',
  // directory, from issues 14 and 15: the check queue, budgets and results; persons, passes and outcomes (with an inbox)
  'packages/directory/test/check-http.test.ts',
  'packages/directory/test/check-history-http.test.ts',
  'packages/directory/test/persons-end-to-end.test.ts',
  // directory, issue 13: signed calls taken once, receipt intake, tallies and outcomes, the nightly reputation snapshot
  'packages/directory/test/signed-calls-http.test.ts',
  'packages/directory/test/receipt-intake-http.test.ts',
  'packages/directory/test/reputation-snapshot-http.test.ts',
  // directory on several machines: two search nodes on one database answer with the same bytes
  'packages/directory/test/search-nodes.test.ts',
  // issue 38: a member's change notice (a durable job in the owner's transaction), the directory's once-a-minute re-read, the activity ping
  'packages/directory/test/member-changes-end-to-end.test.ts',
  // a business's view kept between reads: another process's write shows on the next read (revisions read from the table)
  'packages/directory/test/kept-business-views-http.test.ts',
  // listings stored in bulk (insertMany, as the seed and the benchmarks store them) are stored as one by one
  'packages/directory/test/bulk-store.test.ts',
  // issue 36, game days on servers of the tests' own: stopped, crashed, silent, lost COMMIT answers; TLS, a role that is
  // not a superuser, starved connection slots, a standby promoted; two inbox processes and a directory node through restarts
  'packages/shared/test/postgres-outages.test.ts',
  'packages/shared/test/postgres-operator.test.ts',
  'packages/inbox/test/game-day.test.ts',
  'packages/directory/test/database-restart.test.ts',
];

export default defineConfig({ test: { ...base.test, include: POSTGRES_SUITES } });
