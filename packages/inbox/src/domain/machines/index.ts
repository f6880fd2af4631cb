/** Every item type's machine, by type. */
import type { ItemType } from '../types.js';
import { bookingMachine } from './booking.js';
import type { MachineDefinition } from './machine.js';
import { messageMachine } from './message.js';
import { orderMachine } from './order.js';
import { quoteRequestMachine } from './quote-request.js';
import { refundMachine } from './refund.js';

export const MACHINES: Readonly<Record<ItemType, MachineDefinition>> = Object.freeze({
  booking: bookingMachine,
  order: orderMachine,
  quote_request: quoteRequestMachine,
  message: messageMachine,
  refund: refundMachine,
});

export * from './machine.js';
