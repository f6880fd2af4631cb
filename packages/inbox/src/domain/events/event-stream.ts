/**
 * The polled event stream (inbox spec §4 rule 6): oldest first, by stream position, which follows
 * commit order, so a reader never skips an event that committed after it read (docs/webhooks.md).
 * A cursor is ours (opaque) or the id of the last event read; re-reading is free.
 */
import { decodeCursor, encodeCursor, invalidField, isUlid } from '@svc/shared';
import type { DomainContext } from '../context.js';
import { typeFilterOf } from './event-patterns.js';
import { thinEnvelope, type EventEnvelope } from './event-body.js';

export interface StreamQuery {
  cursor?: string | undefined;
  limit: number;
  types: readonly string[];
  sinceMs?: number | undefined;
  publicBaseUrl: string;
}

export async function readEventStream(ctx: DomainContext, query: StreamQuery): Promise<{ events: EventEnvelope[]; next_cursor: string | null }> {
  const afterPosition = await cursorPosition(ctx, query.cursor);
  const entries = await ctx.store.eventStream.read({
    afterPosition,
    types: typeFilterOf(query.types.length > 0 ? query.types : ['*']),
    sinceMs: query.sinceMs,
    limit: query.limit + 1,
  });
  const page = entries.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    events: page.map((entry) => thinEnvelope(entry.event, query.publicBaseUrl)),
    // Null when caught up; resume later with the id of the last event read as the cursor.
    next_cursor: entries.length > query.limit && last ? encodeCursor({ p: last.position }) : null,
  };
}

async function cursorPosition(ctx: DomainContext, cursor: string | undefined): Promise<number> {
  if (cursor === undefined) return 0;
  if (isUlid(cursor)) {
    const position = await ctx.store.eventStream.positionOf(cursor);
    if (position === null) throw invalidField('cursor', 'No event has this id; pass next_cursor or the id of an event you read.');
    return position;
  }
  const { p } = decodeCursor(cursor, (v): v is { p: number } => typeof v === 'object' && v !== null && Number.isSafeInteger((v as { p?: unknown }).p) && (v as { p: number }).p >= 0);
  return p;
}
