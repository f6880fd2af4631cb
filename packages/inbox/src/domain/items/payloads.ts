/**
 * The typed payload of each item type, in schema.org names (camelCase). Create inputs are what a
 * customer's agent sends; payload schemas are what every view returns. Money is an integer in
 * minor units (cents) with `priceCurrency` (ISO 4217). See docs/items.md.
 */
import { z } from 'zod';

const money = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const isoInstant = z.iso.datetime({ offset: true });

export const contactSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    email: z.email().max(254).optional(),
    phone: z.string().trim().regex(/^\+?[0-9 ().-]{5,32}$/, 'phone must be digits, spaces and + ( ) . - only').optional(),
    locale: z
      .string()
      .regex(/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/, 'locale must be a BCP 47 tag such as pt-PT')
      .optional()
      .describe("The customer's language (BCP 47, such as pt-PT): the business's mails and the item's page are written in it when the inbox writes that language, else in the business's."),
  })
  .strict()
  .describe('How the business can reach the customer; optional.');

// ---- create inputs -------------------------------------------------------------------------------

export const bookingRequestPayload = z
  .object({
    serviceId: z.string().min(1).max(100).describe('The service booked (see list_services).'),
    serviceName: z
      .string()
      .max(300)
      .optional()
      .describe("The service's name as the caller knows it; the catalogue's name replaces it (pricing rule 3), as a product's name does on an order line."),
    startTime: isoInstant.describe('Start, ISO 8601 with offset, e.g. 2026-12-01T10:00:00+00:00.'),
    endTime: isoInstant.optional().describe('End; defaults to start plus the service duration. Longer than the service waits for the business.'),
    partySize: z.number().int().min(1).max(1000).default(1).describe('How many people.'),
    price: money.optional().describe('The price the customer expects, minor units; kept as customerStatedPrice if it differs.'),
    description: z.string().max(5000).optional().describe('Anything the business should know.'),
  })
  .strict();

export const orderLineRequest = z
  .object({
    productId: z.string().min(1).max(100).optional().describe('The product, by id (see list_products).'),
    sku: z.string().min(1).max(100).optional().describe('Or the product by SKU.'),
    name: z.string().min(1).max(300).optional().describe('Name of something not in the catalogue; the business prices it.'),
    quantity: z.number().int().min(1).max(100_000).describe('How many.'),
    price: money.optional().describe('Unit price the customer expects, minor units.'),
  })
  .strict()
  .refine((line) => line.productId !== undefined || line.sku !== undefined || line.name !== undefined, {
    message: 'A line names a productId, a sku or a name.',
  });

export const orderRequestPayload = z
  .object({
    lines: z.array(orderLineRequest).min(1).max(200).describe('What is ordered.'),
    totalPrice: money.optional().describe('The total the customer expects, minor units; kept as customerStatedPrice if it differs.'),
    priceCurrency: z.string().regex(/^[A-Z]{3}$/).optional(),
    description: z.string().max(5000).optional().describe('Delivery wishes or anything else.'),
  })
  .strict();

export const quoteRequestPayload = z
  .object({
    description: z.string().min(1).max(10_000).describe('What the customer needs priced.'),
    serviceId: z.string().min(1).max(100).optional().describe('A related service, if any.'),
    preferredTime: isoInstant.optional().describe('When the customer would like it done.'),
    budget: money.optional().describe('The customer\'s budget, minor units.'),
  })
  .strict();

export const messagePayload = z
  .object({
    subject: z.string().min(1).max(300).optional().describe('Subject of the conversation.'),
  })
  .strict();

// ---- stored payloads (what views return) ---------------------------------------------------------

export const priceStatus = z
  .enum(['catalogue', 'business', 'awaiting_business'])
  .describe('`catalogue`: priced from the catalogue; `business`: priced by the business on the item; `awaiting_business`: the business must price it.');

export const bookingPayload = z.object({
  serviceId: z.string(),
  serviceName: z.string(),
  startTime: z.string().describe('ISO 8601 in the business\'s time zone.'),
  endTime: z.string(),
  durationMinutes: z.number().int(),
  partySize: z.number().int(),
  priceModel: z.enum(['fixed', 'from', 'quote', 'none']),
  price: money.nullable().describe('Minor units; null until the business prices it.'),
  priceCurrency: z.string(),
  priceStatus,
  customerStatedPrice: money.optional(),
  description: z.string().optional(),
  proposal: z
    .object({ startTime: z.string(), endTime: z.string(), price: money.optional(), note: z.string().optional() })
    .optional()
    .describe('Another time the business proposed.'),
});

export const orderLine = z.object({
  productId: z.string().nullable(),
  sku: z.string().nullable(),
  name: z.string(),
  quantity: z.number().int(),
  price: money.nullable().describe('Unit price, minor units.'),
  priceStatus,
  customerStatedPrice: money.optional(),
});

export const orderPayload = z.object({
  lines: z.array(orderLine),
  totalPrice: money.nullable().describe('Sum of line prices times quantities; null while a line awaits a price.'),
  priceCurrency: z.string(),
  customerStatedPrice: money.optional(),
  description: z.string().optional(),
  paymentUrl: z.string().optional(),
  paymentRequestedAt: z.string().optional(),
  paymentDueAt: z.string().optional().describe('When the unpaid order lapses: orders.payDays after the payment request.'),
  lapsedAt: z.string().optional().describe('When the unpaid promise was closed for the networks.'),
  chargedBackAt: z.string().optional(),
  refundItemId: z.string().optional(),
});

export const quotePayload = z.object({
  description: z.string(),
  serviceId: z.string().optional(),
  preferredTime: z.string().optional(),
  budget: money.optional(),
  quote: z
    .object({
      totalPrice: money,
      priceCurrency: z.string(),
      validThrough: z.string(),
      description: z.string().optional(),
      creates: z.enum(['booking', 'order']),
      startTime: z.string().optional(),
      endTime: z.string().optional(),
    })
    .optional(),
  acceptedItemId: z.string().optional(),
});

export const messageItemPayload = z.object({ subject: z.string().optional() });

export const refundPayload = z.object({
  orderId: z.string(),
  amount: money,
  priceCurrency: z.string(),
  reason: z.string(),
  refundedAmount: money.optional(),
});

export type BookingPayload = z.infer<typeof bookingPayload>;
export type OrderPayload = z.infer<typeof orderPayload>;
export type OrderLine = z.infer<typeof orderLine>;
export type QuotePayload = z.infer<typeof quotePayload>;
export type RefundPayload = z.infer<typeof refundPayload>;
export type BookingRequest = z.infer<typeof bookingRequestPayload>;
export type OrderRequest = z.infer<typeof orderRequestPayload>;

export const anyPayload = z
  .union([bookingPayload, orderPayload, quotePayload, refundPayload, messageItemPayload])
  .describe('The typed fields of the item; their shape depends on `type` (docs/items.md).');
