/** The order machine (inbox spec §3 and §6 order.* events). */
import { z } from 'zod';
import { BUSINESS, CUSTOMERS, PAYERS, defineMachine } from './machine.js';

export const acceptOrderInput = z.object({
  linePrices: z
    .array(z.object({ line: z.number().int().min(0), price: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) }).strict())
    .max(200)
    .optional()
    .describe('Unit prices (minor units) the business sets for lines the catalogue does not price, by line index.'),
}).strict();

export const requestPaymentInput = z.object({
  paymentUrl: z.url({ protocol: /^https?$/ }).optional().describe('Where the customer can pay.'),
}).strict();

const BEFORE_PROMISE = ['received', 'needs_info'] as const;
const UNPAID_PROMISE = ['accepted', 'awaiting_payment', 'payment_failed'] as const;

export const orderMachine = defineMachine({
  type: 'order',
  initial: 'received',
  states: [
    'received',
    'needs_info',
    'accepted',
    'awaiting_payment',
    'payment_failed',
    'paid',
    'fulfilling',
    'fulfilled',
    'completed',
    'declined',
    'cancelled',
    'charged_back',
  ],
  terminal: ['completed', 'declined', 'cancelled', 'charged_back'],
  transitions: [
    { event: 'request_info', from: ['received'], to: 'needs_info', by: BUSINESS, guards: [], effects: [], label: 'Ask for details' },
    { event: 'provide_info', from: ['needs_info'], to: 'received', by: CUSTOMERS, guards: [], effects: [], label: 'Give the details asked for' },
    {
      event: 'accept',
      from: [...BEFORE_PROMISE],
      to: 'accepted',
      by: BUSINESS,
      guards: ['business_priced', 'order_priced'],
      effects: ['price_lines'],
      label: 'Accept',
      input: acceptOrderInput,
      receipts: [{ kind: 'accepted' }],
    },
    {
      event: 'request_payment',
      from: ['accepted', 'payment_failed'],
      to: 'awaiting_payment',
      by: BUSINESS,
      guards: [],
      effects: ['record_payment_request', 'schedule_lapse'],
      label: 'Request payment',
      input: requestPaymentInput,
    },
    { event: 'record_payment', from: [...UNPAID_PROMISE], to: 'paid', by: PAYERS, guards: [], effects: [], label: 'Record payment', receipts: [{ kind: 'paid' }] },
    {
      event: 'payment_failed',
      from: ['awaiting_payment'],
      to: 'payment_failed',
      by: PAYERS,
      guards: [],
      effects: [],
      label: 'Payment failed',
      receipts: [{ kind: 'outcome', outcome: 'order.payment_failed' }],
    },
    {
      event: 'lapse',
      from: ['awaiting_payment', 'payment_failed'],
      to: null,
      by: ['system'],
      guards: ['payment_overdue'],
      effects: ['mark_lapsed'],
      label: 'Close the unpaid promise',
      receipts: [{ kind: 'outcome', outcome: 'order.lapsed' }],
    },
    { event: 'start_fulfilment', from: ['accepted', 'paid'], to: 'fulfilling', by: [...BUSINESS, 'connector'], guards: [], effects: [], label: 'Start preparing' },
    {
      event: 'fulfil',
      from: ['accepted', 'paid', 'fulfilling'],
      to: 'fulfilled',
      by: [...BUSINESS, 'connector'],
      guards: [],
      effects: [],
      label: 'Mark as sent',
      receipts: [{ kind: 'outcome', outcome: 'order.fulfilled' }],
    },
    { event: 'complete', from: ['fulfilled'], to: 'completed', by: [...BUSINESS, 'system'], guards: [], effects: [], label: 'Close as done' },
    { event: 'decline', from: [...BEFORE_PROMISE], to: 'declined', by: BUSINESS, guards: [], effects: [], label: 'Decline' },
    { event: 'cancel', from: [...BEFORE_PROMISE], to: 'cancelled', by: [...CUSTOMERS, ...BUSINESS], guards: [], effects: [], label: 'Cancel' },
    {
      event: 'cancel',
      from: [...UNPAID_PROMISE],
      to: 'cancelled',
      by: CUSTOMERS,
      guards: [],
      effects: [],
      label: 'Cancel',
      receipts: [{ kind: 'outcome', outcome: 'order.cancelled_by_customer' }],
    },
    {
      event: 'cancel',
      from: [...UNPAID_PROMISE],
      to: 'cancelled',
      by: BUSINESS,
      guards: [],
      effects: [],
      label: 'Cancel',
      receipts: [{ kind: 'outcome', outcome: 'order.not_fulfilled' }],
    },
    {
      event: 'cancel',
      from: ['paid', 'fulfilling'],
      to: 'cancelled',
      by: ['owner', 'owner_ai', 'integration'],
      guards: [],
      effects: ['open_refund'],
      label: 'Cancel and refund',
      receipts: [{ kind: 'outcome', outcome: 'order.not_fulfilled' }],
    },
    {
      event: 'charge_back',
      from: ['paid', 'fulfilling', 'fulfilled'],
      to: 'charged_back',
      by: PAYERS,
      guards: [],
      effects: [],
      label: 'Record a charge-back',
      receipts: [{ kind: 'outcome', outcome: 'order.charged_back' }],
    },
    {
      event: 'record_charge_back',
      from: ['completed'],
      to: null,
      by: PAYERS,
      guards: ['not_charged_back'],
      effects: ['mark_charged_back'],
      label: 'Record a charge-back on the completed order',
      receipts: [{ kind: 'outcome', outcome: 'order.charged_back' }],
    },
  ],
});
