/** The refund machine (inbox spec §6 refund.* events). A refund is opened by cancelling a paid order. */
import { z } from 'zod';
import { BUSINESS, defineMachine } from './machine.js';

export const refundInput = z.object({
  amount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe('Amount returned, minor units; defaults to the amount asked.'),
}).strict();

export const refundMachine = defineMachine({
  type: 'refund',
  initial: 'requested',
  states: ['requested', 'approved', 'rejected', 'refunded'],
  terminal: ['rejected', 'refunded'],
  transitions: [
    { event: 'approve', from: ['requested'], to: 'approved', by: BUSINESS, guards: [], effects: [], label: 'Approve', receipts: [{ kind: 'accepted' }] },
    { event: 'reject', from: ['requested'], to: 'rejected', by: ['owner', 'owner_ai', 'integration'], guards: [], effects: [], label: 'Reject' },
    // Refunded without an approval first: the promise and its keeping are signed together.
    {
      event: 'refund',
      from: ['requested'],
      to: 'refunded',
      by: ['owner', 'owner_ai', 'integration', 'connector'],
      guards: [],
      effects: ['record_refund'],
      label: 'Money sent back',
      input: refundInput,
      receipts: [{ kind: 'accepted' }, { kind: 'outcome', outcome: 'refund.honoured', late: 'refund.late' }],
    },
    {
      event: 'refund',
      from: ['approved'],
      to: 'refunded',
      by: ['owner', 'owner_ai', 'integration', 'connector'],
      guards: [],
      effects: ['record_refund'],
      label: 'Money sent back',
      input: refundInput,
      receipts: [{ kind: 'outcome', outcome: 'refund.honoured', late: 'refund.late' }],
    },
  ],
});
