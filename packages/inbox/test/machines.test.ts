/**
 * The five item machines as data (inbox spec §3, §6 event table): consistency of every table,
 * reachability, terminal states, coverage of the spec's events, and the interpreter's exact
 * refusals. Pure: no server, no store.
 */
import { describe, expect, it } from 'vitest';
import { Problem } from '@svc/shared';
import {
  MACHINES,
  candidateTransitions,
  normaliseEventName,
  resolveTransition,
  type MachineDefinition,
  type TransitionRow,
} from '../src/domain/machines/index.js';
import { ACTOR_KINDS, ITEM_TYPES, type ActorKind, type ItemType } from '../src/domain/types.js';

/**
 * Section 6's event table, by item type, without the events that are not machine rows
 * (create, receipt_issued, receipt_acknowledged, receipt_not_logged, `<type>.message`, `<type>.flags`).
 */
const SPEC_EVENTS: Record<ItemType, readonly string[]> = {
  booking: [
    'request_info',
    'provide_info',
    'propose',
    'accept',
    'confirm',
    'decline',
    'cancel',
    'cancel_late',
    'cancel_by_business',
    'expire',
    'complete',
    'no_show',
  ],
  order: [
    'request_info',
    'provide_info',
    'accept',
    'request_payment',
    'record_payment',
    'payment_failed',
    'lapse',
    'start_fulfilment',
    'fulfil',
    'complete',
    'decline',
    'cancel',
    'charge_back',
    'record_charge_back',
  ],
  quote_request: ['request_info', 'provide_info', 'quote', 'accept', 'decline', 'expire'],
  message: ['answer', 'close', 'reopen', 'mark_spam', 'unspam'],
  refund: ['approve', 'reject', 'refund'],
};

const NOT_MACHINE_ROWS = ['create', 'receipt_issued', 'receipt_acknowledged', 'receipt_not_logged', 'message', 'flags'];

/** Rows allowed to leave (or stay in) a terminal state, each with why. */
const TERMINAL_EXCEPTIONS: Record<ItemType, readonly { event: string; from: string; to: string | null }[]> = {
  // Corrections (§6 booking.complete / booking.no_show).
  booking: [
    { event: 'complete', from: 'no_show', to: 'completed' },
    { event: 'no_show', from: 'completed', to: 'no_show' },
  ],
  // A charge-back recorded on an already completed order; the state stays (§6 order.record_charge_back).
  order: [{ event: 'record_charge_back', from: 'completed', to: null }],
  quote_request: [],
  message: [],
  refund: [],
};

const OWNER_SIDE: readonly ActorKind[] = ['owner', 'owner_ai', 'integration'];
const CUSTOMER_SIDE: readonly ActorKind[] = ['customer_agent', 'customer_human'];

const machines = ITEM_TYPES.map((type) => [type, MACHINES[type]] as const);

function events(machine: MachineDefinition): string[] {
  return [...new Set(machine.transitions.map((r) => r.event))];
}

function refusal(fn: () => unknown): Problem {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(Problem);
    return error as Problem;
  }
  throw new Error('expected a refusal, got none');
}

describe.each(machines)('the %s machine', (type, machine) => {
  it('is the machine of its own type and lists its initial and terminal states among its states', () => {
    expect(machine.type).toBe(type);
    expect(machine.states).toContain(machine.initial);
    expect(new Set(machine.states).size).toBe(machine.states.length);
    for (const s of machine.terminal) expect(machine.states).toContain(s);
    expect(machine.terminal).not.toContain(machine.initial);
  });

  it('names only declared states in every row, and only known actor kinds', () => {
    for (const row of machine.transitions) {
      expect(row.from.length, `${type}.${row.event} has no from-state`).toBeGreaterThan(0);
      for (const s of row.from) expect(machine.states, `${type}.${row.event} from ${s}`).toContain(s);
      if (row.to !== null) expect(machine.states, `${type}.${row.event} to ${row.to}`).toContain(row.to);
      expect(row.by.length, `${type}.${row.event} has nobody who may fire it`).toBeGreaterThan(0);
      for (const kind of row.by) expect(ACTOR_KINDS).toContain(kind);
      expect(row.label.trim().length, `${type}.${row.event} has no label`).toBeGreaterThan(0);
      expect(row.event).toMatch(/^[a-z][a-z_]*$/);
    }
  });

  it('reaches every state from the initial state', () => {
    const reached = new Set([machine.initial]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const row of machine.transitions) {
        if (row.to !== null && !reached.has(row.to) && row.from.some((s) => reached.has(s))) {
          reached.add(row.to);
          grew = true;
        }
      }
    }
    expect([...reached].sort()).toEqual([...machine.states].sort());
  });

  it('leaves no terminal state except by the listed corrections, and no other state is a dead end', () => {
    const leaving = machine.transitions.flatMap((row) =>
      row.from.filter((s) => machine.terminal.includes(s)).map((from) => ({ event: row.event, from, to: row.to })),
    );
    expect(leaving).toEqual(expect.arrayContaining([...TERMINAL_EXCEPTIONS[type]]));
    expect(leaving).toHaveLength(TERMINAL_EXCEPTIONS[type].length);
    for (const state of machine.states.filter((s) => !machine.terminal.includes(s))) {
      const out = machine.transitions.filter((row) => row.from.includes(state) && row.to !== null && row.to !== state);
      expect(out.length, `${type} state ${state} is a dead end but not terminal`).toBeGreaterThan(0);
    }
  });

  it('lets no customer and no rule act on a terminal state; booking corrections are the owner side only', () => {
    for (const row of machine.transitions) {
      if (!row.from.some((s) => machine.terminal.includes(s))) continue;
      for (const kind of row.by) {
        expect([...CUSTOMER_SIDE, 'rule'], `${type}.${row.event} by ${kind}`).not.toContain(kind);
      }
      if (type === 'booking') expect([...row.by].sort(), `${type}.${row.event}`).toEqual([...OWNER_SIDE].sort());
    }
  });

  it('has every event of the spec event table for its type, and no event the table does not list', () => {
    expect(events(machine).sort()).toEqual([...SPEC_EVENTS[type]].sort());
    for (const name of NOT_MACHINE_ROWS) expect(events(machine)).not.toContain(name);
  });

  it('never shadows a row: where one event has several rows for one actor and state, every row but the last has a guard', () => {
    for (const state of machine.states) {
      for (const actor of ACTOR_KINDS) {
        for (const event of events(machine)) {
          const rows = machine.transitions.filter((r) => r.event === event && r.from.includes(state) && r.by.includes(actor));
          for (const row of rows.slice(0, -1)) {
            expect(row.guards.length, `${type}.${event} in ${state} for ${actor} hides the rows after it`).toBeGreaterThan(0);
          }
        }
      }
    }
  });

  it('resolves every (state, event, actor) to the rows that allow it, or exactly one refusal', () => {
    for (const state of machine.states) {
      for (const event of events(machine)) {
        for (const actor of ACTOR_KINDS) {
          const rows = machine.transitions.filter((r) => r.event === event);
          const forActor = rows.filter((r) => r.by.includes(actor));
          const allowed = forActor.filter((r) => r.from.includes(state));
          const label = `${type}.${event} in ${state} by ${actor}`;
          if (allowed.length > 0) {
            expect(resolveTransition(machine, state, event, actor), label).toEqual(allowed);
          } else if (forActor.length === 0) {
            const p = refusal(() => resolveTransition(machine, state, event, actor));
            expect([p.code, p.status], label).toEqual(['not_allowed', 403]);
          } else {
            const p = refusal(() => resolveTransition(machine, state, event, actor));
            expect([p.code, p.status], label).toEqual(['wrong_state', 409]);
            expect(p.extensions.state).toBe(state);
          }
        }
      }
    }
  });

  it('refuses an event it does not know with unknown_event (400), naming its events', () => {
    const p = refusal(() => resolveTransition(machine, machine.initial, 'teleport', 'owner'));
    expect([p.code, p.status]).toEqual(['unknown_event', 400]);
    for (const event of events(machine)) expect(p.message).toContain(event);
    const create = refusal(() => resolveTransition(machine, machine.initial, 'create', 'owner'));
    expect(create.code).toBe('unknown_event');
  });

  it('lists as candidates exactly the rows the actor may fire in the state, unlisted ones only when asked', () => {
    for (const state of machine.states) {
      for (const actor of ACTOR_KINDS) {
        const all = machine.transitions.filter((r) => r.from.includes(state) && r.by.includes(actor));
        expect(candidateTransitions(machine, state, actor, true)).toEqual(all);
        expect(candidateTransitions(machine, state, actor)).toEqual(all.filter((r) => !r.unlisted));
      }
    }
  });

  it('accepts the event prefixed with its type', () => {
    for (const event of events(machine)) {
      expect(normaliseEventName(type, `${type}.${event}`)).toBe(event);
      expect(normaliseEventName(type, event)).toBe(event);
    }
  });

  it('is frozen', () => {
    expect(Object.isFrozen(machine)).toBe(true);
  });
});

describe('refusals in order of precedence', () => {
  const booking = MACHINES.booking;
  it('says unknown_event before anything else, then not_allowed before wrong_state', () => {
    expect(refusal(() => resolveTransition(booking, 'completed', 'teleport', 'customer_agent')).code).toBe('unknown_event');
    // A customer may never confirm; in a state where confirm is impossible anyway it is still not_allowed.
    expect(refusal(() => resolveTransition(booking, 'completed', 'confirm', 'customer_agent')).code).toBe('not_allowed');
    expect(refusal(() => resolveTransition(booking, 'completed', 'confirm', 'owner')).code).toBe('wrong_state');
    expect(refusal(() => resolveTransition(booking, 'requested', 'accept', 'owner')).code).toBe('not_allowed');
  });

  it('names the states the event needs in a wrong_state refusal', () => {
    const p = refusal(() => resolveTransition(MACHINES.order, 'received', 'fulfil', 'owner'));
    expect(p.code).toBe('wrong_state');
    expect(p.message).toContain('accepted');
    expect(p.message).toContain('fulfilling');
  });
});

describe('who may fire what', () => {
  const by = (type: ItemType, event: string): Set<ActorKind> =>
    new Set(MACHINES[type].transitions.filter((r) => r.event === event).flatMap((r) => r.by));

  it('keeps system and rule events away from the owner: booking.expire, order.lapse, quote_request.expire', () => {
    for (const [type, event] of [
      ['booking', 'expire'],
      ['order', 'lapse'],
      ['quote_request', 'expire'],
    ] as const) {
      for (const kind of [...OWNER_SIDE, ...CUSTOMER_SIDE]) expect(by(type, event).has(kind), `${type}.${event} by ${kind}`).toBe(false);
    }
    expect([...by('order', 'lapse')]).toEqual(['system']);
  });

  it('lets only customers fire the customer side: booking accept, provide_info, cancel, cancel_late; quote accept', () => {
    for (const [type, event] of [
      ['booking', 'accept'],
      ['booking', 'provide_info'],
      ['booking', 'cancel'],
      ['booking', 'cancel_late'],
      ['order', 'provide_info'],
      ['quote_request', 'accept'],
      ['quote_request', 'provide_info'],
    ] as const) {
      expect([...by(type, event)].sort(), `${type}.${event}`).toEqual([...CUSTOMER_SIDE].sort());
    }
  });

  it('never lets a customer move money or fulfilment', () => {
    for (const [type, event] of [
      ['order', 'accept'],
      ['order', 'request_payment'],
      ['order', 'record_payment'],
      ['order', 'payment_failed'],
      ['order', 'start_fulfilment'],
      ['order', 'fulfil'],
      ['order', 'complete'],
      ['order', 'charge_back'],
      ['order', 'record_charge_back'],
      ['refund', 'approve'],
      ['refund', 'reject'],
      ['refund', 'refund'],
      ['booking', 'confirm'],
      ['booking', 'complete'],
      ['booking', 'no_show'],
    ] as const) {
      for (const kind of CUSTOMER_SIDE) expect(by(type, event).has(kind), `${type}.${event} by ${kind}`).toBe(false);
    }
  });

  it('lets a customer cancel an order only before it is paid', () => {
    const customerRows: TransitionRow[] = MACHINES.order.transitions.filter((r) => r.event === 'cancel' && r.by.includes('customer_agent'));
    const from = new Set(customerRows.flatMap((r) => r.from));
    for (const s of ['received', 'needs_info', 'accepted', 'awaiting_payment', 'payment_failed']) expect(from.has(s), s).toBe(true);
    for (const s of ['paid', 'fulfilling', 'fulfilled', 'completed']) expect(from.has(s), s).toBe(false);
    const refundRow = MACHINES.order.transitions.find((r) => r.event === 'cancel' && r.from.includes('paid'));
    expect(refundRow?.effects).toContain('open_refund');
  });

  it('keeps the state on order.lapse and order.record_charge_back (§3: the order stays as it was)', () => {
    for (const event of ['lapse', 'record_charge_back']) {
      for (const row of MACHINES.order.transitions.filter((r) => r.event === event)) expect(row.to).toBeNull();
    }
  });

  it('lets the system expire a quote request only once its quote lapsed (the job fires at validThrough)', () => {
    const systemRows = MACHINES.quote_request.transitions.filter((r) => r.event === 'expire' && r.by.includes('system'));
    expect(systemRows.length).toBeGreaterThan(0);
    for (const row of systemRows) {
      expect(row.from).toEqual(['quoted']);
      expect(row.guards).toContain('quote_lapsed');
    }
  });

  it('checks the slot before confirming or accepting a booking time', () => {
    for (const event of ['confirm', 'accept']) {
      for (const row of MACHINES.booking.transitions.filter((r) => r.event === event)) expect(row.guards).toContain('slot_available');
    }
  });

  it('makes the late cancellation an unlisted row fired by cancel_item', () => {
    const late = MACHINES.booking.transitions.filter((r) => r.event === 'cancel_late');
    expect(late).toHaveLength(1);
    expect(late[0]?.unlisted).toBe(true);
    expect(late[0]?.to).toBe('cancelled_late');
  });
});
