/** GET /v1/stats (directory spec §4): counts of the network, never a name. */
import { z } from 'zod';
import { READ, directoryOperation } from './context.js';

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
  // Kept at most a second while nothing it reads was written (domain/stats/network-stats.ts).
  run: async (ctx) => ctx.stats.answer(),
});
