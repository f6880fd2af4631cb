/** Public reads of the business: profile, services, products, availability (inbox spec §4). */
import { z } from 'zod';
import { checkAvailability } from '../domain/availability/check-availability.js';
import { productSchema, serviceSchema } from '../domain/catalogue/catalogue-schemas.js';
import { loadProfile } from '../domain/context.js';
import { businessProfileSchema } from '../domain/catalogue/profile.js';
import { productPage, servicePage } from './catalogue-pages.js';
import { READ, inboxOperation, pageFields } from './context.js';
import { keptAnswer } from './kept-answers.js';

export const getBusinessProfile = inboxOperation({
  name: 'get_business_profile',
  title: 'Read the business profile',
  description: 'Name, time zone, currency, languages and the item types the business accepts.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/business' },
  answers: { etag: true },
  input: z.object({}),
  output: businessProfileSchema,
  annotations: READ,
  cacheMaxAgeSec: 300,
  errors: [],
  run: (ctx, input, extras) => keptAnswer(ctx, extras, 'get_business_profile', input, ['profile'], async () => ({ body: (await loadProfile(ctx.domain.store)).profile })),
});

export const listServices = inboxOperation({
  name: 'list_services',
  title: 'List bookable services',
  description: 'Services with duration and price model (fixed, from, quote, none); prices in minor units. Paged.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/services' },
  answers: { etag: true },
  input: z.object({ ...pageFields }),
  output: z.object({ items: z.array(serviceSchema), next_cursor: z.string().nullable() }),
  annotations: READ,
  cacheMaxAgeSec: 60,
  errors: ['invalid_input'],
  run: (ctx, input, extras) =>
    keptAnswer(ctx, extras, 'list_services', input, ['services'], async () => ({
      body: await servicePage(ctx.domain.store, { activeOnly: true, cursor: input.cursor, limit: input.limit }),
    })),
});

export const listProducts = inboxOperation({
  name: 'list_products',
  title: 'List orderable products',
  description: 'Products with prices in minor units, by name. `q` finds products by every word (case and accents ignored). Paged.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/products' },
  answers: { etag: true },
  input: z.object({ q: z.string().max(200).optional().describe('Words to search for.'), ...pageFields }),
  output: z.object({ items: z.array(productSchema), next_cursor: z.string().nullable() }),
  annotations: READ,
  cacheMaxAgeSec: 60,
  errors: ['invalid_input'],
  run: (ctx, input, extras) =>
    keptAnswer(ctx, extras, 'list_products', input, ['products'], async () => ({
      body: await productPage(ctx.domain.store, { activeOnly: true, q: input.q, cursor: input.cursor, limit: input.limit }),
    })),
});

/** A bare local date, or an instant that carries its offset: an instant without one would be read in the server's zone. */
const dateOrInstant = z
  .string()
  .min(10)
  .max(40)
  .refine((value) => /^\d{4}-\d{2}-\d{2}$/.test(value) || /T.*(Z|[+-]\d{2}(:?\d{2})?)$/i.test(value), {
    message: 'Use a date (YYYY-MM-DD) or an ISO 8601 instant with an offset (Z or ±HH:MM).',
  });

export const checkAvailabilityOperation = inboxOperation({
  name: 'check_availability',
  title: 'Check free start times',
  description:
    'Free start times of a service between `from` and `to` (at most 14 days apart), from opening hours in the business\'s time zone, closures, the service\'s duration and confirmed bookings.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/availability' },
  answers: { etag: true },
  input: z.object({
    service: z.string().min(1).max(100).describe('Service id (see list_services).'),
    from: dateOrInstant.describe('Start: a local date YYYY-MM-DD or an ISO 8601 instant with offset.'),
    to: dateOrInstant.describe('End: a local date (inclusive) or an instant with offset; at most 14 days after from.'),
    party_size: z.number().int().min(1).max(1000).default(1).describe('How many people.'),
  }),
  output: z.object({
    service: z.object({ id: z.string(), name: z.string(), durationMinutes: z.number().int() }),
    timeZone: z.string(),
    from: z.string(),
    to: z.string(),
    partySize: z.number().int(),
    slots: z.array(z.object({ start: z.string(), end: z.string() })).describe('Free starts with their ends, in the business\'s offset.'),
  }),
  annotations: READ,
  errors: ['invalid_input', 'not_found'],
  run: (ctx, input, extras) =>
    keptAnswer(ctx, extras, 'check_availability', input, ['profile', 'services', 'schedule', 'items'], () =>
      checkAvailability(ctx.domain, { service: input.service, from: input.from, to: input.to, partySize: input.party_size }),
    ),
});
