/** What Today and the calendar show, read once per page (day-pages.ts reads it, the views render it). */
import type { Closure, ItemRecord, OpeningHoursRange, Service } from '../../../domain/types.js';

export interface DayData {
  /** Real bookings overlapping the span, by start. */
  bookings: ItemRecord[];
  /** Whether the span had more bookings than were read. */
  truncated: boolean;
  /** What waits for the owner, oldest first, the first NEEDS_YOU_SHOWN (Today only). */
  waiting: ItemRecord[];
  /** How many items wait for the owner in all. */
  waitingTotal: number;
  /** The first words of the customer's last message, per waiting conversation or quote request. */
  firstWords: Map<string, string>;
  services: Service[];
  openingHours: readonly OpeningHoursRange[];
  closures: readonly Closure[];
}
