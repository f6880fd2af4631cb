/**
 * Owner setup: profile, services, products, opening hours and closures. Paths under /v1/owner/profile,
 * /services, /products, /availability (inbox spec §4; shapes designed here, see docs/owner-setup.md).
 */
import { z } from 'zod';
import {
  availabilitySetupSchema,
  closureInput,
  openingHoursRangeSchema,
  productInput,
  productSchema,
  serviceInput,
  serviceSchema,
} from '../domain/catalogue/catalogue-schemas.js';
import {
  archiveProduct,
  archiveService,
  availabilitySetup,
  setClosures,
  setOpeningHours,
  updateProfile,
  upsertProduct,
  upsertService,
} from '../domain/catalogue/catalogue-service.js';
import { businessProfileSchema } from '../domain/catalogue/profile.js';
import { loadProfile } from '../domain/context.js';
import { productPage, servicePage } from './catalogue-pages.js';
import { PUT, READ, inboxOperation, pageFields } from './context.js';

const OWNER_ERRORS = ['unauthorized', 'not_allowed', 'invalid_input'] as const;
const idempotency_key = z.string().min(1).max(200).optional();
const profileAnswer = z.object({ version: z.number().int(), profile: businessProfileSchema });

export const getProfileOperation = inboxOperation({
  name: 'get_profile',
  title: 'Read the profile with its version',
  description: 'The business profile as the owner edits it, with its version.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/profile' },
  scope: 'inbox:read',
  input: z.object({}),
  output: profileAnswer,
  annotations: READ,
  errors: ['unauthorized'],
  run: async (ctx) => loadProfile(ctx.domain.store),
});

export const updateProfileOperation = inboxOperation({
  name: 'update_profile',
  title: 'Change the profile',
  description: 'Merges the fields sent over the profile; null removes an optional field.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'PATCH', path: '/v1/owner/profile' },
  scope: 'catalogue:write',
  input: z.object({
    profile: businessProfileSchema.partial().extend({
      description: z.string().max(2000).nullable().optional(),
      address: businessProfileSchema.shape.address.nullable(),
      geo: businessProfileSchema.shape.geo.nullable(),
      url: businessProfileSchema.shape.url.nullable(),
      email: businessProfileSchema.shape.email.nullable(),
      telephone: businessProfileSchema.shape.telephone.nullable(),
      categories: businessProfileSchema.shape.categories.nullable(),
    }),
    expected_version: z.number().int().min(0).optional(),
    idempotency_key,
  }).strict(),
  output: profileAnswer,
  annotations: PUT,
  errors: [...OWNER_ERRORS, 'version_conflict'],
  run: (ctx, input) => updateProfile(ctx.domain, input.profile as Record<string, unknown>, input.expected_version),
});

export const listAllServicesOperation = inboxOperation({
  name: 'list_all_services',
  title: 'List every service, archived ones too',
  description: 'The owner\'s view of the services, archived (inactive) ones included. Paged.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/services' },
  scope: 'inbox:read',
  input: z.object({ ...pageFields }),
  output: z.object({ items: z.array(serviceSchema), next_cursor: z.string().nullable() }),
  annotations: READ,
  errors: ['unauthorized', 'invalid_input'],
  run: (ctx, input) => servicePage(ctx.domain.store, { activeOnly: false, cursor: input.cursor, limit: input.limit }),
});

export const upsertServiceOperation = inboxOperation({
  name: 'upsert_service',
  title: 'Add or change a service',
  description: 'Creates the service (201), or replaces the one with this id (200). Prices in minor units of the business currency.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'POST', path: '/v1/owner/services' },
  answers: { alsoStatuses: [201] },
  scope: 'catalogue:write',
  input: z.object({ service: serviceInput, idempotency_key }).strict(),
  output: serviceSchema,
  annotations: PUT,
  errors: OWNER_ERRORS,
  run: async (ctx, input, extras) => {
    const { service, created } = await upsertService(ctx.domain, input.service);
    if (created) extras.status = 201;
    return service;
  },
});

export const archiveServiceOperation = inboxOperation({
  name: 'archive_service',
  title: 'Archive a service',
  description: 'Takes the service off the public list; its bookings stay.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'DELETE', path: '/v1/owner/services/{id}' },
  scope: 'catalogue:write',
  input: z.object({ id: z.string().min(1).max(100), idempotency_key }).strict(),
  output: serviceSchema,
  annotations: PUT,
  errors: [...OWNER_ERRORS, 'not_found'],
  run: (ctx, input) => archiveService(ctx.domain, input.id),
});

export const listAllProductsOperation = inboxOperation({
  name: 'list_all_products',
  title: 'List every product, archived ones too',
  description: 'The owner\'s view of the products, archived ones included; `q` searches. Paged.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/products' },
  scope: 'inbox:read',
  input: z.object({ q: z.string().max(200).optional(), ...pageFields }),
  output: z.object({ items: z.array(productSchema), next_cursor: z.string().nullable() }),
  annotations: READ,
  errors: ['unauthorized', 'invalid_input'],
  run: (ctx, input) => productPage(ctx.domain.store, { activeOnly: false, q: input.q, cursor: input.cursor, limit: input.limit }),
});

export const upsertProductOperation = inboxOperation({
  name: 'upsert_product',
  title: 'Add or change a product',
  description: 'Creates the product (201), or replaces the one with this productId (200). A SKU belongs to one product only.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'POST', path: '/v1/owner/products' },
  answers: { alsoStatuses: [201] },
  scope: 'catalogue:write',
  input: z.object({ product: productInput, idempotency_key }).strict(),
  output: productSchema,
  annotations: PUT,
  errors: OWNER_ERRORS,
  run: async (ctx, input, extras) => {
    const { product, created } = await upsertProduct(ctx.domain, input.product);
    if (created) extras.status = 201;
    return product;
  },
});

export const archiveProductOperation = inboxOperation({
  name: 'archive_product',
  title: 'Archive a product',
  description: 'Takes the product off the public list; orders that name it keep their lines.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'DELETE', path: '/v1/owner/products/{id}' },
  scope: 'catalogue:write',
  input: z.object({ id: z.string().min(1).max(100), idempotency_key }).strict(),
  output: productSchema,
  annotations: PUT,
  errors: [...OWNER_ERRORS, 'not_found'],
  run: (ctx, input) => archiveProduct(ctx.domain, input.id),
});

export const getAvailabilityOperation = inboxOperation({
  name: 'get_availability',
  title: 'Read opening hours and closures',
  description: 'The weekly opening hours (local time in the business\'s zone) and the closures.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/availability' },
  scope: 'inbox:read',
  input: z.object({}),
  output: availabilitySetupSchema,
  annotations: READ,
  errors: ['unauthorized'],
  run: (ctx) => availabilitySetup(ctx.domain),
});

export const setOpeningHoursOperation = inboxOperation({
  name: 'set_opening_hours',
  title: 'Set the weekly opening hours',
  description: 'Replaces the weekly hours: ranges of local time per ISO weekday (1 Monday … 7 Sunday); several ranges a day for breaks.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'PUT', path: '/v1/owner/availability/hours' },
  scope: 'availability:write',
  input: z.object({ openingHours: z.array(openingHoursRangeSchema).max(100), idempotency_key }).strict(),
  output: availabilitySetupSchema,
  annotations: PUT,
  errors: OWNER_ERRORS,
  run: (ctx, input) => setOpeningHours(ctx.domain, input.openingHours),
});

export const setClosuresOperation = inboxOperation({
  name: 'set_closures',
  title: 'Set the closures',
  description: 'Replaces the closures: local dates (inclusive) when nothing can be booked, such as holidays.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'PUT', path: '/v1/owner/availability/closures' },
  scope: 'availability:write',
  input: z.object({ closures: z.array(closureInput).max(500), idempotency_key }).strict(),
  output: availabilitySetupSchema,
  annotations: PUT,
  errors: OWNER_ERRORS,
  run: (ctx, input) => setClosures(ctx.domain, input.closures),
});
