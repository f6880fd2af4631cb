/** The quote request machine (inbox spec §3 and §6 quote_request.* events). */
import { z } from 'zod';
import { BUSINESS, CUSTOMERS, defineMachine } from './machine.js';

export const quoteInput = z.object({
  totalPrice: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe('The quoted total in minor units.'),
  validThrough: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('Until when the quote may be accepted; defaults to now plus the quotes.defaultValidityHours setting.'),
  description: z.string().max(5000).optional().describe('What the quote covers.'),
  creates: z.enum(['booking', 'order']).default('order').describe('What an acceptance creates; a booking only when the request names a service.'),
  startTime: z.iso.datetime({ offset: true }).optional().describe('For a quote that creates a booking: its start.'),
  endTime: z.iso.datetime({ offset: true }).optional(),
}).strict().refine((q) => q.creates !== 'booking' || q.startTime !== undefined, {
  message: 'A quote that creates a booking needs its startTime.',
  path: ['startTime'],
});

export const quoteRequestMachine = defineMachine({
  type: 'quote_request',
  initial: 'received',
  states: ['received', 'needs_info', 'quoted', 'accepted', 'declined', 'expired'],
  terminal: ['accepted', 'declined', 'expired'],
  transitions: [
    { event: 'request_info', from: ['received', 'quoted'], to: 'needs_info', by: BUSINESS, guards: [], effects: [], label: 'Ask what exactly is needed' },
    { event: 'provide_info', from: ['needs_info'], to: 'received', by: CUSTOMERS, guards: [], effects: [], label: 'Give the details asked for' },
    {
      event: 'quote',
      from: ['received', 'needs_info', 'quoted'],
      to: 'quoted',
      by: BUSINESS,
      guards: [],
      effects: ['store_quote', 'schedule_quote_expiry'],
      label: 'Send a quote',
      input: quoteInput,
    },
    { event: 'accept', from: ['quoted'], to: 'accepted', by: CUSTOMERS, guards: ['quote_valid'], effects: ['link_item'], label: 'Accept the quote' },
    { event: 'decline', from: ['received', 'needs_info', 'quoted'], to: 'declined', by: [...BUSINESS, ...CUSTOMERS], guards: [], effects: [], label: 'Decline' },
    { event: 'expire', from: ['quoted'], to: 'expired', by: ['rule', 'system'], guards: ['quote_lapsed'], effects: [], label: 'Expire' },
    // Only a rule expires a request that has no live quote: the system's job fires at a quote's
    // validity date, and must not expire a request sent back for details after that quote.
    { event: 'expire', from: ['received', 'needs_info'], to: 'expired', by: ['rule'], guards: [], effects: [], label: 'Expire' },
  ],
});
