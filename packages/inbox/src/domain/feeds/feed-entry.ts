/**
 * Maps one raw feed entry (Google Merchant Center attribute names) to the product it describes, or
 * to the reason it cannot be one. Pure: no storage, the business currency and the time are given.
 *
 * g:id → productId · title → name · description · g:price (or g:sale_price while in effect) →
 * price + priceCurrency · g:availability → inStock · link → url · g:image_link → image ·
 * g:product_type, else a worded g:google_product_category → category · g:gtin, else g:mpn → sku.
 */
import { sha256Hex } from '@svc/shared';
import { DateTime } from 'luxon';
import { readFeedPrice } from './feed-price.js';
import type { Product } from '../types.js';
import type { RawFeedEntry } from './feed-types.js';

/** What a feed entry becomes: a product's own fields, without the catalogue's bookkeeping. */
export type FeedProduct = Omit<Product, 'active' | 'createdAt' | 'updatedAt'>;

export type EntryReading = { ok: true; product: FeedProduct } | { ok: false; id: string | null; reason: string };

/** The catalogue's field limits (catalogue-schemas.ts productInput). */
const NAME_MAX = 300;
const DESCRIPTION_MAX = 5000;
const CATEGORY_MAX = 200;
const SKU_MAX = 100;
const URL_MAX = 2000;
const PRODUCT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * Google's availability values (and their older spelled-out forms). Pre-ordered and back-ordered
 * goods can be ordered but are not on hand, so they read as not in stock.
 */
const IN_STOCK: Readonly<Record<string, boolean>> = Object.freeze({
  in_stock: true,
  available_for_order: true,
  limited_availability: true,
  out_of_stock: false,
  preorder: false,
  backorder: false,
});

export function readFeedEntry(entry: RawFeedEntry, context: { currency: string; nowMs: number }): EntryReading {
  const id = entry.id?.trim() || null;
  if (!id) return { ok: false, id: null, reason: 'no g:id' };
  const name = oneLine(entry.title ?? '');
  if (!name) return { ok: false, id, reason: 'no title' };
  if (!entry.price) return { ok: false, id, reason: 'no g:price' };
  const price = readFeedPrice(entry.price);
  if (!price.ok) return { ok: false, id, reason: price.reason };
  if (price.currency !== context.currency) {
    return { ok: false, id, reason: `priced in ${price.currency}; this business sells in ${context.currency}` };
  }
  const availability = (entry.availability ?? 'in_stock').trim().toLowerCase().replace(/[\s-]+/g, '_');
  const inStock = IN_STOCK[availability];
  if (inStock === undefined) return { ok: false, id, reason: `unknown g:availability "${clip(entry.availability ?? '')}"` };
  const sku = (entry.gtin ?? entry.mpn ?? '').trim();
  if (sku.length > SKU_MAX) return { ok: false, id, reason: `g:gtin or g:mpn is longer than ${SKU_MAX} characters` };

  return {
    ok: true,
    product: {
      productId: productIdFor(id),
      sku: sku || null,
      name: truncate(name, NAME_MAX),
      description: entry.description ? truncate(plainText(entry.description), DESCRIPTION_MAX) || null : null,
      price: salePrice(entry, price.currency, price.amountMinor, context.nowMs),
      priceCurrency: price.currency,
      category: categoryOf(entry),
      image: webUrl(entry.image_link),
      url: webUrl(entry.link),
      inStock,
    },
  };
}

/** A feed id that fits the catalogue's productId is kept; another gets a readable, collision-free one. */
export function productIdFor(feedId: string): string {
  if (PRODUCT_ID.test(feedId)) return feedId;
  const readable = feedId.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 80).replace(/-+$/, '');
  const suffix = sha256Hex(feedId).slice(0, 8);
  return readable ? `${readable}-${suffix}` : `feed-${suffix}`;
}

/** g:sale_price replaces the price while g:sale_price_effective_date (an ISO interval "start/end") covers now, or always when no interval is given. */
function salePrice(entry: RawFeedEntry, currency: string, regular: number, nowMs: number): number {
  if (!entry.sale_price) return regular;
  const sale = readFeedPrice(entry.sale_price);
  if (!sale.ok || sale.currency !== currency || sale.amountMinor > regular) return regular;
  const window = entry.sale_price_effective_date?.trim();
  if (!window) return sale.amountMinor;
  const [from, to] = window.split('/');
  const start = from ? DateTime.fromISO(from.trim(), { zone: 'utc' }) : null;
  const end = to ? DateTime.fromISO(to.trim(), { zone: 'utc' }) : null;
  if (!start?.isValid || !end?.isValid) return regular;
  return start.toMillis() <= nowMs && nowMs < end.toMillis() ? sale.amountMinor : regular;
}

function categoryOf(entry: RawFeedEntry): string | null {
  const own = entry.product_type?.trim();
  if (own) return truncate(oneLine(own), CATEGORY_MAX);
  const google = entry.google_product_category?.trim();
  // A bare taxonomy number says nothing to a customer's agent.
  if (google && !/^\d+$/.test(google)) return truncate(oneLine(google), CATEGORY_MAX);
  return null;
}

function webUrl(value: string | undefined): string | null {
  const text = value?.trim();
  if (!text || text.length > URL_MAX) return null;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Feed descriptions are plain text; markup some shops leave in is dropped. */
function plainText(value: string): string {
  return value.replace(/<\/?[A-Za-z][^>]*>/g, ' ').replace(/[ \t]+/g, ' ').replace(/\s*\n\s*/g, '\n').trim();
}

function oneLine(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

function truncate(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
