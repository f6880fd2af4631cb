/** Reading and changing the catalogue: profile, services, products, opening hours, closures. */
import { Problem, invalidField, newId, problemFromZod } from '@svc/shared';
import type { z } from 'zod';
import { announcePublishedChange } from '../publishing/published-change.js';
import { loadProfile, type DomainContext } from '../context.js';
import { foldText } from '../text.js';
import type { Closure, OpeningHoursRange, Product, Service } from '../types.js';
import type { closureInput, productInput, serviceInput } from './catalogue-schemas.js';
import { businessProfileSchema, type BusinessProfile } from './profile.js';

/** Every write here changes the manifest: the networks it reports to are told, in the same transaction (published-change.ts). */
function published(ctx: DomainContext): Promise<void> {
  return announcePublishedChange(ctx.store, ctx.clock.now());
}

export function serviceView(s: Service) {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    durationMinutes: s.durationMinutes,
    priceModel: s.priceModel,
    price: s.price,
    priceCurrency: s.priceCurrency,
    capacity: s.capacity,
    maxPartySize: s.maxPartySize,
    slotStepMinutes: s.slotStepMinutes,
    minNoticeMinutes: s.minNoticeMinutes,
    active: s.active,
  };
}

export function productView(p: Product) {
  return {
    productId: p.productId,
    sku: p.sku,
    name: p.name,
    description: p.description,
    price: p.price,
    priceCurrency: p.priceCurrency,
    category: p.category,
    image: p.image,
    url: p.url,
    inStock: p.inStock,
    active: p.active,
  };
}

export async function updateProfile(ctx: DomainContext, patch: Partial<BusinessProfile>, expectedVersion: number | undefined) {
  const { profile, version } = await loadProfile(ctx.store);
  if (expectedVersion !== undefined && expectedVersion !== version) {
    throw new Problem('version_conflict', `The profile is at version ${version}.`, { extensions: { currentVersion: version } });
  }
  const merged: Record<string, unknown> = { ...profile };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else if (value !== undefined) merged[key] = value;
  }
  const checked = businessProfileSchema.safeParse(merged);
  if (!checked.success) {
    const problem = problemFromZod(checked.error);
    throw new Problem('invalid_input', problem.message, { fields: problem.fields?.map((f) => ({ ...f, path: `profile.${f.path}` })) ?? [] });
  }
  const parsed = checked.data;
  const written = await ctx.store.business.put(parsed, version === 0 ? null : version, ctx.clock.now());
  await published(ctx);
  if (!written) throw new Problem('version_conflict', 'The profile changed meanwhile; read it again.');
  return { profile: parsed, version: version + 1 };
}

function slugify(value: string): string {
  return foldText(value).replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || newId().toLowerCase();
}

export async function upsertService(ctx: DomainContext, input: z.output<typeof serviceInput>) {
  const { profile } = await loadProfile(ctx.store);
  const id = input.id ?? slugify(input.name);
  const existing = await ctx.store.catalogue.getService(id);
  const nowMs = ctx.clock.now();
  const service: Service = {
    id,
    name: input.name,
    description: input.description ?? null,
    durationMinutes: input.durationMinutes,
    priceModel: input.priceModel,
    price: input.priceModel === 'fixed' || input.priceModel === 'from' ? (input.price ?? null) : (input.price ?? null),
    priceCurrency: profile.currency,
    capacity: input.capacity,
    maxPartySize: input.maxPartySize,
    slotStepMinutes: input.slotStepMinutes,
    minNoticeMinutes: input.minNoticeMinutes,
    active: input.active,
    position: input.position ?? existing?.position ?? (await nextPosition(ctx)),
    createdAt: existing?.createdAt ?? nowMs,
    updatedAt: nowMs,
  };
  await ctx.store.catalogue.upsertService(service);
  await published(ctx);
  return { service: serviceView(service), created: existing === null };
}

async function nextPosition(ctx: DomainContext): Promise<number> {
  const all = await ctx.store.catalogue.listServices({ activeOnly: false, limit: 10_000 });
  return all.reduce((max, s) => Math.max(max, s.position + 1), 0);
}

export async function archiveService(ctx: DomainContext, id: string) {
  const existing = await ctx.store.catalogue.getService(id);
  if (!existing) throw new Problem('not_found', `No service has id ${id}.`);
  const archived = { ...existing, active: false, updatedAt: ctx.clock.now() };
  await ctx.store.catalogue.upsertService(archived);
  await published(ctx);
  return serviceView(archived);
}

export async function upsertProduct(ctx: DomainContext, input: z.output<typeof productInput>) {
  const { profile } = await loadProfile(ctx.store);
  const productId = input.productId ?? slugify(input.sku ?? input.name);
  const existing = await ctx.store.catalogue.getProduct(productId);
  if (input.sku) {
    const holder = await ctx.store.catalogue.getProductBySku(input.sku);
    if (holder && holder.productId !== productId) {
      // The path as upsert_product's input names it (REST body and MCP arguments alike).
      throw invalidField('product.sku', `SKU ${input.sku} already belongs to product ${holder.productId}.`);
    }
  }
  const nowMs = ctx.clock.now();
  const product: Product = {
    productId,
    sku: input.sku ?? null,
    name: input.name,
    description: input.description ?? null,
    price: input.price,
    priceCurrency: profile.currency,
    category: input.category ?? null,
    image: input.image ?? null,
    url: input.url ?? null,
    inStock: input.inStock,
    active: input.active,
    createdAt: existing?.createdAt ?? nowMs,
    updatedAt: nowMs,
  };
  await ctx.store.catalogue.upsertProduct(product, productSearchText(product));
  await published(ctx);
  return { product: productView(product), created: existing === null };
}

export function productSearchText(p: Product): string {
  return foldText([p.name, p.sku, p.description, p.category].filter(Boolean).join(' '));
}

export async function archiveProduct(ctx: DomainContext, productId: string) {
  const existing = await ctx.store.catalogue.getProduct(productId);
  if (!existing) throw new Problem('not_found', `No product has id ${productId}.`);
  const archived = { ...existing, active: false, updatedAt: ctx.clock.now() };
  await ctx.store.catalogue.upsertProduct(archived, productSearchText(archived));
  await published(ctx);
  return productView(archived);
}

export async function availabilitySetup(ctx: DomainContext) {
  const { profile } = await loadProfile(ctx.store);
  const [openingHours, closures] = await Promise.all([ctx.store.catalogue.getOpeningHours(), ctx.store.catalogue.getClosures()]);
  return { timeZone: profile.timeZone, openingHours, closures };
}

export async function setOpeningHours(ctx: DomainContext, ranges: readonly OpeningHoursRange[]) {
  await ctx.store.catalogue.setOpeningHours(ranges);
  await published(ctx);
  return availabilitySetup(ctx);
}

export async function setClosures(ctx: DomainContext, closures: readonly z.output<typeof closureInput>[]) {
  const stored: Closure[] = closures.map((c) => ({ id: newId(ctx.clock.now()), startDate: c.startDate, endDate: c.endDate, reason: c.reason ?? null }));
  await ctx.store.catalogue.setClosures(stored);
  await published(ctx);
  return availabilitySetup(ctx);
}
