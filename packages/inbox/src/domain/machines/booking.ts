/** The booking machine (inbox spec §3 and §6 booking.* events). */
import { z } from 'zod';
import { BUSINESS, CUSTOMERS, defineMachine } from './machine.js';

const OPEN = ['requested', 'needs_info', 'proposed'] as const;

export const proposalInput = z.object({
  startTime: z.iso.datetime({ offset: true }).describe('Proposed start, ISO 8601 with offset.'),
  endTime: z.iso.datetime({ offset: true }).optional().describe('Proposed end; defaults to start plus the service duration.'),
  price: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe('Price in minor units, set by the business.'),
  note: z.string().max(2000).optional(),
}).strict();

export const confirmInput = z.object({
  price: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe('Price in minor units, for a booking the catalogue does not price.'),
}).strict();

export const bookingMachine = defineMachine({
  type: 'booking',
  initial: 'requested',
  states: [
    'requested',
    'needs_info',
    'proposed',
    'confirmed',
    'completed',
    'no_show',
    'cancelled',
    'cancelled_late',
    'cancelled_by_business',
    'declined',
    'expired',
  ],
  terminal: ['completed', 'no_show', 'cancelled', 'cancelled_late', 'cancelled_by_business', 'declined', 'expired'],
  transitions: [
    { event: 'request_info', from: ['requested', 'proposed'], to: 'needs_info', by: BUSINESS, guards: [], effects: [], label: 'Ask for details' },
    { event: 'provide_info', from: ['needs_info'], to: 'requested', by: CUSTOMERS, guards: [], effects: [], label: 'Give the details asked for' },
    {
      event: 'propose',
      from: [...OPEN],
      to: 'proposed',
      by: BUSINESS,
      guards: [],
      effects: ['store_proposal'],
      label: 'Propose another time',
      input: proposalInput,
    },
    {
      event: 'accept',
      from: ['proposed'],
      to: 'confirmed',
      by: CUSTOMERS,
      guards: ['proposal_present', 'not_too_soon', 'slot_available'],
      effects: ['apply_proposal', 'schedule_auto_complete'],
      label: 'Accept the proposed time',
    },
    {
      event: 'confirm',
      from: ['requested', 'needs_info'],
      to: 'confirmed',
      by: BUSINESS,
      guards: ['business_priced', 'slot_available'],
      effects: ['price_booking', 'schedule_auto_complete'],
      label: 'Confirm',
      input: confirmInput,
    },
    { event: 'decline', from: [...OPEN], to: 'declined', by: BUSINESS, guards: [], effects: [], label: 'Decline' },
    { event: 'cancel', from: [...OPEN], to: 'cancelled', by: CUSTOMERS, guards: [], effects: [], label: 'Cancel' },
    {
      event: 'cancel',
      from: ['confirmed'],
      to: 'cancelled',
      by: CUSTOMERS,
      guards: ['within_cancellation_window'],
      effects: [],
      label: 'Cancel',
    },
    {
      event: 'cancel_late',
      from: ['confirmed'],
      to: 'cancelled_late',
      by: CUSTOMERS,
      guards: ['late_cancellation_recorded'],
      effects: [],
      label: 'Cancel (late)',
      unlisted: true,
    },
    {
      event: 'cancel_by_business',
      from: [...OPEN, 'confirmed'],
      to: 'cancelled_by_business',
      by: BUSINESS,
      guards: [],
      effects: [],
      label: 'Cancel for the customer',
    },
    { event: 'expire', from: [...OPEN], to: 'expired', by: ['rule', 'system'], guards: [], effects: [], label: 'Expire' },
    {
      event: 'complete',
      from: ['confirmed'],
      to: 'completed',
      by: [...BUSINESS, 'system'],
      guards: ['has_started'],
      effects: [],
      label: 'Mark as done',
    },
    { event: 'complete', from: ['no_show'], to: 'completed', by: ['owner', 'owner_ai', 'integration'], guards: [], effects: [], label: 'Correct: it happened' },
    { event: 'no_show', from: ['confirmed'], to: 'no_show', by: ['owner', 'owner_ai', 'integration'], guards: ['has_started'], effects: [], label: 'Mark as no-show' },
    { event: 'no_show', from: ['completed'], to: 'no_show', by: ['owner', 'owner_ai', 'integration'], guards: [], effects: [], label: 'Correct: they did not come' },
  ],
});
