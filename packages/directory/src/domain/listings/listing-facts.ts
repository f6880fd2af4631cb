/**
 * The `facts` of a business that is not a member (directory spec §2 Listing `facts`, Fact): every
 * value its view shows that the business published, under the view's own field name, with the
 * value exactly as shown (so a fact never tells another place, another point or another spelling
 * than the listing), where it came from (`src`), when it was seen (`at`), and the page (`url`) and
 * means (`via`) when known.
 *
 * The values come from the view; the provenance from the facts kept with the listing (a field kept
 * under an older internal name, such as `priceBand` or `payments`, counts for the field it is shown
 * as), else from the value itself (an attribute's or a category's own `src`), else from how the
 * listing came: `seen` on the business's site when the service found it, `declared` when the
 * business registered it, at the time it was last checked.
 */
import { showsStreet, type Fact, type ListingRecord, type ValueSource } from './listing.js';

/** Fields of the view that the business published, in the view's order; `attributes.<key>` and `accepts.pay` are each one fact. */
const FACT_FIELDS = [
  'name',
  'description',
  'city',
  'country',
  'address',
  'categories',
  'tags',
  'languages',
  'item_types',
  'protocols',
  'hours',
  'services',
  'geo',
  'url',
  'category',
  'attributes',
  'accepts.pay',
  'place',
  'price_band',
] as const;

/** Names facts were kept under before they took the view's names. */
const KEPT_AS: Readonly<Record<string, string>> = { priceBand: 'price_band', payments: 'accepts.pay', itemTypes: 'item_types', placeCategory: 'category' };

type Provenance = Omit<Fact, 'field' | 'v'>;

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** The facts of a view of a listing that is not a member (`view` is what listingView shows). */
export function listingFacts(l: ListingRecord, view: Record<string, unknown>): Fact[] {
  const kept = new Map<string, Fact>();
  for (const fact of l.facts) {
    const field = KEPT_AS[fact.field] ?? fact.field;
    if (!kept.has(field)) kept.set(field, fact);
  }
  const base: Provenance = {
    src: l.source === 'found' ? 'seen' : 'declared',
    at: new Date(l.found?.checkedAt ?? l.updatedAt).toISOString(),
  };
  const provenance = (field: string, own?: ValueSource): Provenance => {
    const fact = kept.get(field);
    if (fact) return { src: own ?? fact.src, at: fact.at, ...(fact.url ? { url: fact.url } : {}), ...(fact.via ? { via: fact.via } : {}) };
    return own ? { ...base, src: own } : base;
  };
  const facts: Fact[] = [];
  const add = (field: string, v: unknown, p: Provenance) => facts.push({ field, v, src: p.src, at: p.at, ...(p.url ? { url: p.url } : {}), ...(p.via ? { via: p.via } : {}) });

  for (const field of FACT_FIELDS) {
    switch (field) {
      case 'attributes': {
        const shown = (view.attributes ?? {}) as Record<string, { v: unknown; src: ValueSource }>;
        for (const [key, value] of Object.entries(shown)) add(`attributes.${key}`, value.v, provenance(`attributes.${key}`, value.src));
        break;
      }
      case 'accepts.pay': {
        const pay = (view.accepts as { pay?: string[] } | undefined)?.pay;
        if (!isEmpty(pay)) add(field, pay, provenance(field));
        break;
      }
      case 'price_band':
        // Not a field of the listing, but what price_band= filters on: shown here so a match can be told.
        if (l.priceBand !== null) add(field, l.priceBand, provenance(field));
        break;
      case 'category': {
        const category = view.category as { primary: { src: ValueSource } } | undefined;
        if (category) add(field, category, provenance(field, category.primary.src));
        break;
      }
      case 'geo': {
        if (isEmpty(view.geo)) break;
        const p = provenance(field);
        // Until the business claims its entry its point is shown rounded (listing.ts shownGeo): the fact says so.
        add(field, view.geo, showsStreet(l) ? p : { ...p, via: 'rounded to about a kilometre until the business claims its entry' });
        break;
      }
      default:
        if (!isEmpty(view[field])) add(field, view[field], provenance(field));
    }
  }
  return facts;
}
