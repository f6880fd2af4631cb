/** The message (conversation) machine (inbox spec §6 message.* events). */
import { BUSINESS, CUSTOMERS, defineMachine } from './machine.js';

export const messageMachine = defineMachine({
  type: 'message',
  initial: 'open',
  states: ['open', 'answered', 'closed', 'spam'],
  terminal: [],
  transitions: [
    { event: 'answer', from: ['open'], to: 'answered', by: BUSINESS, guards: [], effects: [], label: 'Mark answered' },
    { event: 'close', from: ['open', 'answered'], to: 'closed', by: [...BUSINESS, ...CUSTOMERS], guards: [], effects: [], label: 'Close' },
    { event: 'reopen', from: ['answered', 'closed'], to: 'open', by: [...BUSINESS, ...CUSTOMERS, 'system'], guards: [], effects: [], label: 'Reopen' },
    { event: 'mark_spam', from: ['open', 'answered', 'closed'], to: 'spam', by: BUSINESS, guards: [], effects: [], label: 'Mark as spam' },
    { event: 'unspam', from: ['spam'], to: 'open', by: ['owner', 'owner_ai', 'integration'], guards: [], effects: [], label: 'Not spam' },
  ],
});
