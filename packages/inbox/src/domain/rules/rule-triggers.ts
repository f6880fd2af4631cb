/**
 * Which item events can start a rule, and whether a trigger pattern matches an event. Only events
 * that create or move an item start rules: side events (`<type>.message`, `<type>.flags`) never
 * do, so a rule that raises a flag cannot set itself off again.
 */
import { MACHINES } from '../machines/index.js';
import { ITEM_TYPES, type ItemType } from '../types.js';

/** `create` plus every event of the type's machine. */
export function triggerEventsOf(type: ItemType): string[] {
  return ['create', ...new Set(MACHINES[type].transitions.map((row) => row.event))];
}

/** The item types a pattern can match any event of; empty when it matches nothing. */
export function typesOfTrigger(pattern: string): ItemType[] {
  if (pattern === '*') return [...ITEM_TYPES];
  const [typePart, eventPart] = pattern.split('.') as [string, string];
  const types = typePart === '*' ? [...ITEM_TYPES] : ITEM_TYPES.filter((t) => t === typePart);
  return eventPart === '*' ? types : types.filter((t) => triggerEventsOf(t).includes(eventPart));
}

/** `*`, `booking.*`, `*.provide_info` or an exact `booking.create`, against `<item type>.<event>`. */
export function matchesTrigger(pattern: string, eventType: string): boolean {
  if (pattern === '*') return true;
  const [typePart, eventPart] = pattern.split('.');
  const [type, event] = eventType.split('.');
  return (typePart === '*' || typePart === type) && (eventPart === '*' || eventPart === event);
}
