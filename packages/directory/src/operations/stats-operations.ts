/** GET /v1/stats (directory spec §4): counts of the network, never a name. */
import { z } from 'zod';
import { emptyCounts } from '../domain/stats/directory-counts.js';
import { READ, directoryOperation } from './context.js';

const DAY_MS = 86_400_000;

export const getStats = directoryOperation({
  name: 'get_stats',
  title: 'Read the network\'s statistics',
  description:
    'How many inboxes are online, businesses listed, activity in the last day, receipts, the service\'s status, and directory counts (never a name). Activity is what inboxes that answer reported with their signed pings, at most 10000 of each kind per inbox. receipts_issued and receipts_acknowledged count the receipts listed businesses published here (sandbox receipts are not counted): the sums of their listings\' receipts.issued and receipts.acknowledged.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/stats' },
  answers: { etag: true },
  input: z.object({}),
  output: z.object({
    instances_online: z.number().int().min(0),
    businesses_listed: z.number().int().min(0),
    activity_24h: z.object({ bookings: z.number().int().min(0), orders: z.number().int().min(0), quotes: z.number().int().min(0), messages: z.number().int().min(0) }),
    receipts_issued: z.number().int().min(0),
    receipts_acknowledged: z.number().int().min(0),
    reviews_published: z.number().int().min(0),
    status: z.object({ api: z.enum(['ok', 'degraded']), jobs_lag_seconds: z.number(), last_sweep_at: z.string().nullable() }),
    directory: z.object({
      checked: z.number().int().min(0),
      agent_ready: z.number().int().min(0),
      software_and_ai: z.number().int().min(0).optional(),
      capabilities: z.record(z.string(), z.number().int().min(0)),
      doors: z.record(z.string(), z.number().int().min(0)),
      as_of: z.string(),
    }),
    generated_at: z.string(),
  }),
  annotations: READ,
  cacheMaxAgeSec: 60,
  errors: [],
  run: async (ctx) => {
    const store = ctx.domain.store;
    const nowMs = ctx.domain.clock.now();
    const [instances, listed, oldestDue, receipts] = await Promise.all([
      store.instances.list(),
      store.listings.countListed(),
      store.jobs.oldestDueAt(nowMs),
      store.receipts.listedTotals(),
    ]);
    // Answering: pinged in the last day, and not failing its manifest check (listings/answering.ts).
    const online = instances.filter((i) => i.lastPingAt !== null && i.lastPingAt >= nowMs - DAY_MS && i.status !== 'unreachable');
    const activity = { bookings: 0, orders: 0, quotes: 0, messages: 0 };
    for (const instance of online) {
      for (const key of Object.keys(activity) as (keyof typeof activity)[]) activity[key] += instance.counts?.[key] ?? 0;
    }
    const lagSeconds = oldestDue === null ? 0 : Math.max(0, (nowMs - oldestDue) / 1000);
    const state = ctx.search.peek();
    return {
      instances_online: online.length,
      businesses_listed: listed,
      activity_24h: activity,
      receipts_issued: receipts.issued,
      receipts_acknowledged: receipts.acknowledged,
      reviews_published: 0,
      status: {
        api: state ? ('ok' as const) : ('degraded' as const),
        jobs_lag_seconds: Math.round(lagSeconds),
        last_sweep_at: state ? new Date(state.computedAt).toISOString() : null,
      },
      // From check results and members, taken at most every ten minutes (domain/checks/check-counts.ts),
      // once the service is up (before its first hour is prepared no count was taken: the zero time).
      directory: state ? await ctx.checks.counts() : emptyCounts(),
      generated_at: new Date(nowMs).toISOString(),
    };
  },
});
