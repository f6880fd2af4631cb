/** Services, products, opening hours and closures in SQLite. No business rules here. */
import { compileOnce } from '@svc/shared';
import type { Kysely, Selectable } from 'kysely';
import type { Closure, OpeningHoursRange, PriceModel, Product, Service } from '../../domain/types.js';
import type { CatalogueStore, PageRequest } from '../store.js';
import type { Database, ProductsTable, ServicesTable } from './schema.js';

// Read by every booking, order and quote: compiled once.
const serviceById = compileOnce((db: Kysely<Database>, p: { id: string }) => db.selectFrom('services').selectAll().where('id', '=', p.id));
const productById = compileOnce((db: Kysely<Database>, p: { id: string }) => db.selectFrom('products').selectAll().where('id', '=', p.id));
const productBySku = compileOnce((db: Kysely<Database>, p: { sku: string }) => db.selectFrom('products').selectAll().where('sku', '=', p.sku));
const openingHours = compileOnce((db: Kysely<Database>) => db.selectFrom('opening_hours').selectAll().orderBy('day_of_week').orderBy('opens'));
const closures = compileOnce((db: Kysely<Database>) => db.selectFrom('closures').selectAll().orderBy('start_date'));

export class KyselyCatalogueStore implements CatalogueStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async listServices(options: PageRequest & { activeOnly: boolean }): Promise<Service[]> {
    let query = this.#db.selectFrom('services').selectAll().orderBy('position').orderBy('id').limit(options.limit);
    if (options.activeOnly) query = query.where('active', '=', 1);
    if (options.after) {
      const [at, id] = splitKey(options.after);
      const position = Number(at);
      query = query.where((eb) => eb.or([eb('position', '>', position), eb.and([eb('position', '=', position), eb('id', '>', id)])]));
    }
    return (await query.execute()).map(toService);
  }

  async getService(id: string): Promise<Service | null> {
    const row = await serviceById.first(this.#db, { id });
    return row ? toService(row) : null;
  }

  async upsertService(s: Service): Promise<void> {
    const row = {
      id: s.id,
      name: s.name,
      description: s.description,
      duration_min: s.durationMinutes,
      price_model: s.priceModel,
      price_minor: s.price,
      currency: s.priceCurrency,
      capacity: s.capacity,
      max_party_size: s.maxPartySize,
      slot_step_min: s.slotStepMinutes,
      min_notice_min: s.minNoticeMinutes,
      active: s.active ? 1 : 0,
      position: s.position,
      created_at: s.createdAt,
      updated_at: s.updatedAt,
    };
    const { id: _id, created_at: _created, ...changes } = row;
    await this.#db.insertInto('services').values(row).onConflict((oc) => oc.column('id').doUpdateSet(changes)).execute();
  }

  async listProducts(options: PageRequest & { activeOnly: boolean; search?: string[] | undefined }): Promise<Product[]> {
    let query = this.#db.selectFrom('products').selectAll().orderBy('name').orderBy('id').limit(options.limit);
    if (options.activeOnly) query = query.where('active', '=', 1);
    for (const word of options.search ?? []) query = query.where('search_text', 'like', `%${escapeLike(word)}%`, );
    if (options.after) {
      const [name, id] = splitKey(options.after);
      query = query.where((eb) => eb.or([eb('name', '>', String(name)), eb.and([eb('name', '=', String(name)), eb('id', '>', id)])]));
    }
    return (await query.execute()).map(toProduct);
  }

  async getProduct(productId: string): Promise<Product | null> {
    const row = await productById.first(this.#db, { id: productId });
    return row ? toProduct(row) : null;
  }

  async getProductBySku(sku: string): Promise<Product | null> {
    const row = await productBySku.first(this.#db, { sku });
    return row ? toProduct(row) : null;
  }

  async upsertProduct(p: Product, searchText: string): Promise<void> {
    const row = {
      id: p.productId,
      sku: p.sku,
      name: p.name,
      description: p.description,
      price_minor: p.price,
      currency: p.priceCurrency,
      category: p.category,
      image_url: p.image,
      url: p.url,
      in_stock: p.inStock ? 1 : 0,
      active: p.active ? 1 : 0,
      search_text: searchText,
      created_at: p.createdAt,
      updated_at: p.updatedAt,
    };
    const { id: _id, created_at: _created, ...changes } = row;
    await this.#db.insertInto('products').values(row).onConflict((oc) => oc.column('id').doUpdateSet(changes)).execute();
  }

  async getOpeningHours(): Promise<OpeningHoursRange[]> {
    const rows = await openingHours.all(this.#db, {});
    return rows.map((r) => ({ dayOfWeek: r.day_of_week, opens: r.opens, closes: r.closes }));
  }

  async setOpeningHours(ranges: readonly OpeningHoursRange[]): Promise<void> {
    await this.#db.deleteFrom('opening_hours').execute();
    if (ranges.length > 0) {
      await this.#db
        .insertInto('opening_hours')
        .values(ranges.map((r) => ({ day_of_week: r.dayOfWeek, opens: r.opens, closes: r.closes })))
        .execute();
    }
  }

  async getClosures(): Promise<Closure[]> {
    const rows = await closures.all(this.#db, {});
    return rows.map((r) => ({ id: r.id, startDate: r.start_date, endDate: r.end_date, reason: r.reason }));
  }

  async setClosures(closures: readonly Closure[]): Promise<void> {
    await this.#db.deleteFrom('closures').execute();
    if (closures.length > 0) {
      await this.#db
        .insertInto('closures')
        .values(closures.map((c) => ({ id: c.id, start_date: c.startDate, end_date: c.endDate, reason: c.reason })))
        .execute();
    }
  }
}

/** Keyset positions travel as JSON pairs inside the opaque cursor. */
function splitKey(after: string): [number | string, string] {
  const parsed = JSON.parse(after) as [number | string, string];
  return parsed;
}

export function escapeLike(value: string): string {
  return value.replace(/[%_\\]/g, '');
}

function toService(r: Selectable<ServicesTable>): Service {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    durationMinutes: r.duration_min,
    priceModel: r.price_model as PriceModel,
    price: r.price_minor === null ? null : Number(r.price_minor),
    priceCurrency: r.currency,
    capacity: r.capacity,
    maxPartySize: r.max_party_size,
    slotStepMinutes: r.slot_step_min,
    minNoticeMinutes: r.min_notice_min,
    active: r.active === 1,
    position: r.position,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

function toProduct(r: Selectable<ProductsTable>): Product {
  return {
    productId: r.id,
    sku: r.sku,
    name: r.name,
    description: r.description,
    price: Number(r.price_minor),
    priceCurrency: r.currency,
    category: r.category,
    image: r.image_url,
    url: r.url,
    inStock: r.in_stock === 1,
    active: r.active === 1,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}
