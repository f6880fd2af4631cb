/** Schemas of the catalogue as callers see and write it: services, products, opening hours, closures. */
import { z } from 'zod';

const money = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const slug = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'ids are 1-100 letters, digits, dot, dash or underscore');

export const serviceSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  durationMinutes: z.number().int(),
  priceModel: z.enum(['fixed', 'from', 'quote', 'none']).describe('fixed: costs `price`; from: at least `price`, the business prices it; quote: priced by quote; none: no price.'),
  price: money.nullable().describe('Minor units.'),
  priceCurrency: z.string(),
  capacity: z.number().int().describe('Places at once (seats, chairs).'),
  maxPartySize: z.number().int(),
  slotStepMinutes: z.number().int(),
  minNoticeMinutes: z.number().int(),
  active: z.boolean(),
});

export const serviceInput = z
  .object({
    id: slug.optional().describe('Stable id; made from the name when absent.'),
    name: z.string().trim().min(1).max(200),
    description: z.string().max(5000).nullable().optional(),
    durationMinutes: z.number().int().min(5).max(24 * 60),
    priceModel: z.enum(['fixed', 'from', 'quote', 'none']),
    price: money.nullable().optional(),
    capacity: z.number().int().min(1).max(10_000).default(1),
    maxPartySize: z.number().int().min(1).max(10_000).default(1),
    slotStepMinutes: z.number().int().min(5).max(24 * 60).default(15),
    minNoticeMinutes: z.number().int().min(0).max(60 * 24 * 90).default(60),
    active: z.boolean().default(true),
    position: z.number().int().min(0).max(100_000).optional(),
  })
  .strict()
  .superRefine((s, issue) => {
    if ((s.priceModel === 'fixed' || s.priceModel === 'from') && (s.price === undefined || s.price === null)) {
      issue.addIssue({ code: 'custom', path: ['price'], message: `A ${s.priceModel} price model needs a price.` });
    }
    if (s.maxPartySize > s.capacity) {
      issue.addIssue({ code: 'custom', path: ['maxPartySize'], message: 'maxPartySize cannot exceed capacity.' });
    }
  });

export const productSchema = z.object({
  productId: z.string(),
  sku: z.string().nullable(),
  name: z.string(),
  description: z.string().nullable(),
  price: money.describe('Minor units.'),
  priceCurrency: z.string(),
  category: z.string().nullable(),
  image: z.string().nullable(),
  url: z.string().nullable(),
  inStock: z.boolean(),
  active: z.boolean(),
});

export const productInput = z
  .object({
    productId: slug.optional().describe('Stable id; made from the SKU or name when absent.'),
    sku: z.string().trim().min(1).max(100).nullable().optional(),
    name: z.string().trim().min(1).max(300),
    description: z.string().max(5000).nullable().optional(),
    price: money,
    category: z.string().max(200).nullable().optional(),
    image: z.url().nullable().optional(),
    url: z.url().nullable().optional(),
    inStock: z.boolean().default(true),
    active: z.boolean().default(true),
  })
  .strict();

const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'times are HH:MM, 00:00 to 24:00');

export const openingHoursRangeSchema = z
  .object({
    dayOfWeek: z.number().int().min(1).max(7).describe('ISO day: 1 Monday … 7 Sunday.'),
    opens: clock,
    closes: clock.describe('A close at or before the opening runs past midnight.'),
  })
  .strict();

const isoDate = z.iso.date();

export const closureInput = z
  .object({
    startDate: isoDate.describe('First closed local date, YYYY-MM-DD.'),
    endDate: isoDate.describe('Last closed local date (inclusive).'),
    reason: z.string().max(300).nullable().optional(),
  })
  .strict()
  .refine((c) => c.endDate >= c.startDate, { message: 'endDate is before startDate.', path: ['endDate'] });

export const closureSchema = z.object({ id: z.string(), startDate: z.string(), endDate: z.string(), reason: z.string().nullable() });

export const availabilitySetupSchema = z.object({
  timeZone: z.string(),
  openingHours: z.array(openingHoursRangeSchema),
  closures: z.array(closureSchema),
});
