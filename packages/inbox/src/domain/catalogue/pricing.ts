/**
 * Pricing rules 1–5 of the inbox spec (§4): the catalogue sets prices; a different price in the
 * request is kept as `customerStatedPrice`; catalogue names replace the request's; a productId/sku
 * pair naming two products, and a total too large to write exactly, are refused; what the catalogue
 * does not price waits for the business.
 */
import { Problem, invalidField } from '@svc/shared';
import type { OrderLine, OrderPayload, OrderRequest } from '../items/payloads.js';
import type { Product, Service } from '../types.js';

export interface ProductLookup {
  byId(productId: string): Promise<Product | null>;
  bySku(sku: string): Promise<Product | null>;
}

/** The order's payload, and whether anything waits for the business to price it. */
export async function priceOrder(
  request: OrderRequest,
  currency: string,
  products: ProductLookup,
): Promise<{ payload: OrderPayload; awaitsBusiness: boolean }> {
  if (request.priceCurrency && request.priceCurrency !== currency) {
    throw invalidField('payload.priceCurrency', `This business prices in ${currency}.`);
  }
  const lines: OrderLine[] = [];
  for (const [index, line] of request.lines.entries()) {
    const product = await resolveLineProduct(line, index, products);
    const usable = product && product.active && product.priceCurrency === currency ? product : null;
    if (usable) {
      const priced: OrderLine = {
        productId: usable.productId,
        sku: usable.sku,
        name: usable.name,
        quantity: line.quantity,
        price: usable.price,
        priceStatus: 'catalogue',
      };
      if (line.price !== undefined && line.price !== usable.price) priced.customerStatedPrice = line.price;
      lines.push(priced);
    } else {
      const unpriced: OrderLine = {
        productId: line.productId ?? null,
        sku: line.sku ?? null,
        name: line.name ?? line.productId ?? line.sku ?? `Line ${index + 1}`,
        quantity: line.quantity,
        price: null,
        priceStatus: 'awaiting_business',
      };
      if (line.price !== undefined) unpriced.customerStatedPrice = line.price;
      lines.push(unpriced);
    }
  }
  const totalPrice = orderTotal(lines);
  const payload: OrderPayload = { lines, totalPrice, priceCurrency: currency };
  if (request.totalPrice !== undefined && request.totalPrice !== totalPrice) payload.customerStatedPrice = request.totalPrice;
  if (request.description) payload.description = request.description;
  return { payload, awaitsBusiness: totalPrice === null };
}

/** Lines' prices times quantities; null while a line is unpriced; refused when not exactly representable. */
export function orderTotal(lines: readonly Pick<OrderLine, 'price' | 'quantity'>[]): number | null {
  let total = 0n;
  for (const line of lines) {
    if (line.price === null) return null;
    total += BigInt(line.price) * BigInt(line.quantity);
  }
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new Problem('invalid_input', 'The order total is too large to be written exactly.', {
      fields: [{ path: 'payload.lines', problem: 'invalid', message: 'Prices times quantities exceed the largest exact total (2^53 - 1 minor units).' }],
    });
  }
  return Number(total);
}

async function resolveLineProduct(
  line: OrderRequest['lines'][number],
  index: number,
  products: ProductLookup,
): Promise<Product | null> {
  const byId = line.productId !== undefined ? await products.byId(line.productId) : null;
  const bySku = line.sku !== undefined ? await products.bySku(line.sku) : null;
  if (line.productId !== undefined && line.sku !== undefined) {
    const sameProduct = byId !== null && bySku !== null && byId.productId === bySku.productId;
    if (!sameProduct && (byId !== null || bySku !== null)) {
      throw new Problem('invalid_input', `Line ${index + 1}: productId and sku name two different products.`, {
        fields: [
          { path: `payload.lines.${index}.productId`, problem: 'invalid', message: 'productId and sku name two different products; send one of them.' },
          { path: `payload.lines.${index}.sku`, problem: 'invalid', message: 'productId and sku name two different products; send one of them.' },
        ],
      });
    }
  }
  return byId ?? bySku;
}

/** A booking's price: fixed services cost what the catalogue says, unless booked for longer than they last. */
export function priceBooking(
  service: Service,
  durationMinutes: number,
  statedPrice: number | undefined,
): { price: number | null; priceStatus: 'catalogue' | 'awaiting_business'; customerStatedPrice?: number } {
  const catalogueApplies = service.priceModel === 'fixed' && service.price !== null && durationMinutes <= service.durationMinutes;
  const price = catalogueApplies ? service.price : null;
  const result: { price: number | null; priceStatus: 'catalogue' | 'awaiting_business'; customerStatedPrice?: number } = {
    price,
    priceStatus: catalogueApplies ? 'catalogue' : 'awaiting_business',
  };
  if (statedPrice !== undefined && statedPrice !== price) result.customerStatedPrice = statedPrice;
  return result;
}
