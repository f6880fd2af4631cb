/**
 * The state-machine interpreter. Machines are frozen data (one file per item type); this file
 * resolves an event for an item and an actor into exactly one transition, or the precise refusal
 * (unknown_event 400, not_allowed 403, wrong_state 409), and lists the moves open to an actor.
 * Guards are named here and evaluated by domain/items; the interpreter only reads.
 */
import { Problem, type OutcomeCode } from '@svc/shared';
import type { z } from 'zod';
import type { ActorKind, ItemType } from '../types.js';

/** Every guard a transition may name. Each is checked against a snapshot before anything is written. */
export type GuardId =
  /** The booking's slot (or proposed slot) has room for its party among confirmed bookings. */
  | 'slot_available'
  /** The booking starts after now plus the service's minimum notice (owners exempt). */
  | 'not_too_soon'
  /** The booking has started, so it can be completed or marked a no-show. */
  | 'has_started'
  /** A confirmed booking is cancelled at least the cancellation window before its start. */
  | 'within_cancellation_window'
  /** A confirmed booking is cancelled inside the window and the business records late cancellations. */
  | 'late_cancellation_recorded'
  /** A proposal (booking) is present to accept. */
  | 'proposal_present'
  /** A quote is present and still valid. */
  | 'quote_valid'
  /** The quote's validity date has passed (to expire it). */
  | 'quote_lapsed'
  /** Every order line has a business-set price. */
  | 'order_priced'
  /** Payment was requested `orders.payDays` ago and never came. */
  | 'payment_overdue'
  /** The order was never charged back. */
  | 'not_charged_back'
  /** A rule confirms or accepts only what the catalogue or the business priced, and never sets a price (spec §3 rule 2). */
  | 'business_priced';

/** Every effect a transition may have besides moving state. */
export type EffectId =
  /** Copy the proposed start and end onto the booking. */
  | 'apply_proposal'
  /** Store the owner's quote (total, validity) on the quote request. */
  | 'store_quote'
  /** Store the owner's proposal on the booking. */
  | 'store_proposal'
  /** Apply a price the business sets when confirming a booking the catalogue does not price. */
  | 'price_booking'
  /** Apply business-set line prices given with the acceptance. */
  | 'price_lines'
  /** Record when payment was requested, and a payment URL. */
  | 'record_payment_request'
  /** Record that the payment promise lapsed (the state stays). */
  | 'mark_lapsed'
  /** Record the charge-back on a completed order (the state stays). */
  | 'mark_charged_back'
  /** Create the booking or order a quote's acceptance leads to. */
  | 'link_item'
  /** Open a refund item for money already taken. */
  | 'open_refund'
  /** Record the amount sent back on a refund (the amount asked unless given; never more). */
  | 'record_refund'
  /** Schedule booking.complete after autoCompleteHours. */
  | 'schedule_auto_complete'
  /** Schedule order.lapse after payDays. */
  | 'schedule_lapse'
  /** Schedule quote_request.expire at the quote's validity date. */
  | 'schedule_quote_expiry';

/**
 * A receipt a move makes due (docs/receipts.md "When a receipt is issued"), signed in the move's own
 * transaction. The outcome of a promise is part of the row that ends it, so the table says it once.
 */
export type ReceiptDue =
  /** A promise made: a booking confirmed, an order or a refund accepted, a payment recorded, a change accepted. */
  | { kind: 'confirmed' | 'accepted' | 'paid' | 'amended' }
  /**
   * A promise ended with `outcome` (issued only when the promise itself was signed). `late` is the code
   * when it ends after its due date; `corrects` marks a correction of an earlier outcome (`prv`).
   */
  | { kind: 'outcome'; outcome: OutcomeCode; late?: OutcomeCode; corrects?: true };

export const CUSTOMERS: readonly ActorKind[] = ['customer_agent', 'customer_human'];
/** The business side; an integration key acts for the owner. */
export const BUSINESS: readonly ActorKind[] = ['owner', 'owner_ai', 'integration', 'rule'];
export const PAYERS: readonly ActorKind[] = ['owner', 'owner_ai', 'integration', 'connector', 'system'];

export interface TransitionRow {
  event: string;
  from: readonly string[];
  /** Target state; `null` keeps the state (a self-transition that still counts as a move). */
  to: string | null;
  by: readonly ActorKind[];
  guards: readonly GuardId[];
  effects: readonly EffectId[];
  /** Button text for the owner and the customer. */
  label: string;
  /** Input the event takes (besides `reason`); validated before guards run. */
  input?: z.ZodType;
  /** Fired by an operation (cancel_item), never offered as a button. */
  unlisted?: boolean;
  /** Receipts this move signs, in order. */
  receipts?: readonly ReceiptDue[];
}

export interface MachineDefinition {
  type: ItemType;
  initial: string;
  states: readonly string[];
  /** States nothing leaves, except listed corrections. */
  terminal: readonly string[];
  transitions: readonly TransitionRow[];
}

export function defineMachine(machine: MachineDefinition): MachineDefinition {
  const states = new Set(machine.states);
  if (!states.has(machine.initial)) throw new Error(`${machine.type}: initial state not listed`);
  for (const row of machine.transitions) {
    for (const s of [...row.from, ...(row.to ? [row.to] : [])]) {
      if (!states.has(s)) throw new Error(`${machine.type}.${row.event}: unknown state ${s}`);
    }
  }
  return Object.freeze(machine);
}

/** Accepts `confirm` or `booking.confirm`. */
export function normaliseEventName(type: ItemType, event: string): string {
  return event.startsWith(`${type}.`) ? event.slice(type.length + 1) : event;
}

/**
 * All rows an actor may fire for this event in this state (several rows of one event differ by
 * guards, e.g. cancel inside or outside the window); the caller picks the first whose guards pass.
 */
export function resolveTransition(machine: MachineDefinition, state: string, event: string, actor: ActorKind): TransitionRow[] {
  const rows = machine.transitions.filter((row) => row.event === event);
  if (rows.length === 0) {
    const known = [...new Set(machine.transitions.map((r) => r.event))].join(', ');
    throw new Problem('unknown_event', `${machine.type} has no event "${event}". Its events are: ${known}.`);
  }
  const forActor = rows.filter((row) => row.by.includes(actor));
  if (forActor.length === 0) {
    throw new Problem('not_allowed', `${actorLabel(actor)} may not fire ${machine.type}.${event}.`);
  }
  const inState = forActor.filter((r) => r.from.includes(state));
  const row = inState[0];
  if (!row) {
    const from = [...new Set(forActor.flatMap((r) => r.from))].join(', ');
    throw new Problem('wrong_state', `${machine.type}.${event} is not possible in state ${state}; it needs one of: ${from}.`, {
      extensions: { state },
    });
  }
  return inState;
}

/** Rows open to an actor in a state before guards are checked; an event may have several rows. */
export function candidateTransitions(machine: MachineDefinition, state: string, actor: ActorKind, includeUnlisted = false): TransitionRow[] {
  return machine.transitions.filter(
    (row) => (includeUnlisted || !row.unlisted) && row.by.includes(actor) && row.from.includes(state),
  );
}

function actorLabel(actor: ActorKind): string {
  return actor.replace('_', ' ');
}
