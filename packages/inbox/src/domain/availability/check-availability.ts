/** check_availability: free start times of one service in a window of at most 14 days. */
import { Problem, invalidField } from '@svc/shared';
import { DateTime } from 'luxon';
import { loadProfile, type DomainContext } from '../context.js';
import { computeFreeStarts } from './free-starts.js';

export const MAX_WINDOW_DAYS = 14;

export interface AvailabilityQuery {
  service: string;
  from: string;
  to: string;
  partySize: number;
}

/** A bare date means midnight in the business's zone; anything else must carry an offset. */
function instantOf(value: string, timeZone: string, field: string): number {
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(value)
    ? DateTime.fromISO(value, { zone: timeZone })
    : DateTime.fromISO(value, { setZone: true });
  if (!parsed.isValid) throw invalidField(field, `${field} must be a date (YYYY-MM-DD) or an ISO 8601 instant with offset.`);
  return parsed.toMillis();
}

/**
 * The free starts, and until when that answer holds as time passes (ms, exclusive): a start is
 * offered only while it is at least the service's notice away, so the answer changes when its first
 * start comes within the notice; an answer with no start stays so (time only takes starts away).
 */
export async function checkAvailability(ctx: DomainContext, query: AvailabilityQuery) {
  const { profile } = await loadProfile(ctx.store);
  const fromMs = instantOf(query.from, profile.timeZone, 'from');
  const toMs = /^\d{4}-\d{2}-\d{2}$/.test(query.to)
    ? DateTime.fromISO(query.to, { zone: profile.timeZone }).plus({ days: 1 }).toMillis() // a bare end date is inclusive
    : instantOf(query.to, profile.timeZone, 'to');
  if (!Number.isFinite(toMs)) throw invalidField('to', 'to must be a date (YYYY-MM-DD) or an ISO 8601 instant with offset.');
  if (toMs <= fromMs) throw invalidField('to', 'to must be after from.');
  if (toMs - fromMs > MAX_WINDOW_DAYS * 86_400_000) {
    throw new Problem('invalid_input', `The window may span at most ${MAX_WINDOW_DAYS} days.`, {
      fields: [{ path: 'to', problem: 'invalid', message: `to may be at most ${MAX_WINDOW_DAYS} days after from.` }],
    });
  }
  // The window is checked first (bad input is 422 whatever it names); a service this business does
  // not offer is a resource that is not there, 404 as for an unknown item (inbox spec §7).
  const service = await ctx.store.catalogue.getService(query.service);
  if (!service || !service.active) throw new Problem('not_found', `No bookable service has id ${query.service}; see list_services.`);
  const [openingHours, closures, busy] = await Promise.all([
    ctx.store.catalogue.getOpeningHours(),
    ctx.store.catalogue.getClosures(),
    ctx.store.items.confirmedBookings(service.id, fromMs - 86_400_000, toMs + 86_400_000),
  ]);
  const slots = computeFreeStarts({
    service,
    timeZone: profile.timeZone,
    openingHours,
    closures,
    busy,
    fromMs,
    toMs,
    partySize: query.partySize,
    nowMs: ctx.clock.now(),
  });
  const first = slots[0];
  const validUntilMs = first ? Date.parse(first.start) - service.minNoticeMinutes * 60_000 + 1 : Number.POSITIVE_INFINITY;
  return {
    body: {
      service: { id: service.id, name: service.name, durationMinutes: service.durationMinutes },
      timeZone: profile.timeZone,
      from: new Date(fromMs).toISOString(),
      to: new Date(toMs).toISOString(),
      partySize: query.partySize,
      slots,
    },
    validUntilMs,
  };
}
