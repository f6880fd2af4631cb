/** The polled event stream (inbox spec §4 rule 6): GET /v1/owner/events, scope events:read. */
import { invalidField } from '@svc/shared';
import { z } from 'zod';
import { patternProblem } from '../domain/events/event-patterns.js';
import { readEventStream } from '../domain/events/event-stream.js';
import { READ, inboxOperation } from './context.js';

const actorSchema = z.object({ kind: z.string(), id: z.string().nullable(), name: z.string().nullable() });

export const streamEventSchema = z.object({
  id: z.string().describe('ULID of the event; also its webhook-id.'),
  type: z.string(),
  timestamp: z.string(),
  data: z.object({
    id: z.string().describe('The item id.'),
    type: z.string().describe('The item type.'),
    state: z.string(),
    version: z.number().int(),
    url: z.string().describe('Owner API URL of the item.'),
    actor: actorSchema,
    channel: z.string(),
    sandbox: z.boolean(),
  }),
});

export const listEventsOperation = inboxOperation({
  name: 'list_events',
  title: 'Read the event stream',
  description:
    'Every recorded event, oldest first. Omit cursor to start at the beginning; pass next_cursor to go on. next_cursor is null when you are caught up: then poll again later with the id of the last event you read as the cursor. Filters: types (patterns such as booking.* or order.create, comma-separated or repeated) and since (ISO instant). Re-reading is free.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/events' },
  scope: 'events:read',
  input: z.object({
    cursor: z.string().min(1).max(512).optional().describe('next_cursor of the previous page, or the id of the last event you read.'),
    limit: z.number().int().min(1).max(100).default(50).describe('Page size, 1 to 100.'),
    types: z.array(z.string().min(1).max(100)).max(50).optional().describe('Event type patterns: exact, <item type>.*, or *.'),
    since: z.iso.datetime({ offset: true }).optional().describe('Only events recorded at or after this ISO 8601 instant.'),
  }),
  output: z.object({ events: z.array(streamEventSchema), next_cursor: z.string().nullable() }),
  annotations: READ,
  errors: ['unauthorized', 'not_allowed', 'invalid_input'],
  run: async (ctx, input) => {
    for (const [index, pattern] of (input.types ?? []).entries()) {
      const problem = patternProblem(pattern);
      if (problem) throw invalidField(`types.${index}`, `${pattern}: ${problem}.`);
    }
    return readEventStream(ctx.domain, {
      cursor: input.cursor,
      limit: input.limit,
      types: input.types ?? [],
      sinceMs: input.since === undefined ? undefined : Date.parse(input.since),
      publicBaseUrl: ctx.config.publicBaseUrl,
    });
  },
});
