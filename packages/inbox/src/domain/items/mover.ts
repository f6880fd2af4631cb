import type { Actor, Channel } from '../types.js';

/** Who moves an item and through which door: recorded on every event a write makes. */
export interface Mover {
  actor: Actor;
  channel: Channel;
}
