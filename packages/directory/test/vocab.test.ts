import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import {
  CATEGORIES_VERSION,
  CATEGORY_GROUPS,
  GROUP_LANGUAGES,
  SLUG_PATTERN,
  categoryListEntries,
  groupBySlug,
  kindOfGroup,
} from '../src/domain/vocab/groups.js';
import {
  PRESET_RULES,
  categoriesDocument,
  groupForPreset,
  loadTaxonomy,
  placeCategoryDocument,
} from '../src/domain/vocab/taxonomy.js';
import { categoryCandidates, categoryWords, resolveCategory } from '../src/domain/vocab/category-resolver.js';
import {
  ATTRIBUTE_GROUPS,
  ATTRIBUTE_KEYS,
  PAYMENTS,
  attributeKey,
  attributeValueAllowed,
  attributesDocument,
  isPaymentToken,
  paymentTokenGroup,
} from '../src/domain/vocab/attributes.js';
import { editDistance, fold, foldWords } from '../src/domain/vocab/fold.js';

const EXPECTED_SLUGS = [
  'restaurant', 'cafe', 'bakery', 'bar', 'grocery', 'shop', 'hair-beauty', 'wellness', 'fitness', 'health',
  'dental', 'therapy', 'trades', 'cleaning', 'auto', 'repair', 'legal', 'accounting', 'consulting', 'it-services',
  'education', 'events', 'venues', 'photography', 'stay', 'tours', 'pets', 'florist', 'crafts', 'software-ai',
];
const REGULATED = ['health', 'dental', 'therapy', 'legal'];
const SOFTWARE_AI_IDS = [
  'software_and_ai',
  'software_and_ai.ai_agents',
  'software_and_ai.developer_tools',
  'software_and_ai.it_infrastructure',
  'software_and_ai.saas',
];

describe('taxonomy loading', () => {
  // First in the file on purpose: it measures the one real load.
  it('loads in well under 1.5 s, once', () => {
    const start = performance.now();
    const taxonomy = loadTaxonomy();
    const elapsed = performance.now() - start;
    expect(elapsed).toBeLessThan(1500);
    expect(loadTaxonomy()).toBe(taxonomy);
  });

  it('names the installed schema release as its taxonomy', () => {
    const require = createRequire(import.meta.url);
    const pkg = JSON.parse(readFileSync(require.resolve('@openstreetmap/id-tagging-schema/package.json'), 'utf8'));
    expect(loadTaxonomy().meta).toEqual({
      name: expect.any(String),
      release: pkg.version,
      licence: 'ISC',
      url: 'https://github.com/openstreetmap/id-tagging-schema',
    });
  });
});

describe('fold', () => {
  it('ignores case and accents and treats -, _ and spaces alike', () => {
    expect(fold('  Café ')).toBe('cafe');
    expect(fold('Hair-Beauty')).toBe('hair beauty');
    expect(fold('hair_beauty')).toBe('hair beauty');
    expect(fold('Clínica  Dentária')).toBe('clinica dentaria');
    expect(foldWords('Salão de Beleza (Unhas)')).toEqual(['salao', 'de', 'beleza', 'unhas']);
    expect(fold('Chambre d’Hôtes')).toBe("chambre d'hotes");
  });

  it('counts a swap of neighbouring letters as one edit', () => {
    expect(editDistance('hiar', 'hair')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('restaurant', 'restaurant')).toBe(0);
    expect(editDistance('abc', 'xyzabc', 1)).toBe(2);
  });
});

describe('category groups', () => {
  it('are the thirty groups, in list order, with valid unique slugs', () => {
    expect(CATEGORY_GROUPS.map((g) => g.slug)).toEqual(EXPECTED_SLUGS);
    for (const g of CATEGORY_GROUPS) expect(g.slug).toMatch(SLUG_PATTERN);
    expect(SLUG_PATTERN.test('Hair-Beauty')).toBe(false);
    expect(SLUG_PATTERN.test('1cafe')).toBe(false);
    expect(SLUG_PATTERN.test('hair--beauty')).toBe(false);
    expect(Number.isInteger(CATEGORIES_VERSION) && CATEGORIES_VERSION >= 1).toBe(true);
  });

  it('have labels in every language and synonyms in English and Portuguese', () => {
    for (const g of CATEGORY_GROUPS) {
      for (const lang of GROUP_LANGUAGES) expect(g.labels[lang].trim().length, `${g.slug} ${lang}`).toBeGreaterThan(0);
      expect(g.synonyms.en.length, g.slug).toBeGreaterThan(0);
      expect(g.synonyms.pt.length, g.slug).toBeGreaterThan(0);
    }
  });

  it('keep software-ai as the only group of kind software_and_ai', () => {
    const software = CATEGORY_GROUPS.filter((g) => g.kind === 'software_and_ai').map((g) => g.slug);
    expect(software).toEqual(['software-ai']);
    expect(CATEGORY_GROUPS.filter((g) => g.kind !== 'local_and_retail' && g.kind !== 'software_and_ai')).toEqual([]);
    expect(kindOfGroup('software-ai')).toBe('software_and_ai');
    expect(kindOfGroup('cafe')).toBe('local_and_retail');
  });

  it('mark exactly the regulated groups', () => {
    expect(CATEGORY_GROUPS.filter((g) => g.regulated).map((g) => g.slug)).toEqual(REGULATED);
  });

  it('list as {slug, labels, kind} entries', () => {
    const entries = categoryListEntries();
    expect(entries).toHaveLength(30);
    expect(entries[0]).toEqual({ slug: 'restaurant', labels: expect.objectContaining({ en: 'Restaurants', pt: 'Restaurantes' }), kind: 'local_and_retail' });
  });
});

describe('place categories', () => {
  const taxonomy = loadTaxonomy();

  it('exist for every group and hang together (id, parent, path, group, kind)', () => {
    for (const g of taxonomy.groups) expect(taxonomy.placeCategoriesInGroup(g.slug).length, g.slug).toBeGreaterThan(0);
    const ids = new Set<string>();
    for (const n of taxonomy.placeCategories) {
      expect(ids.has(n.id), n.id).toBe(false);
      ids.add(n.id);
      expect(n.id).not.toContain('/');
      expect(n.label).toBe(n.labels.en);
      const group = groupBySlug(n.group);
      expect(group, n.id).toBeDefined();
      expect(n.kind).toBe(group!.kind);
      expect(n.path[0]).toBe(n.group);
      expect(n.path[n.path.length - 1]).toBe(n.id);
      if (n.parent === null) expect(n.path).toHaveLength(2);
      else {
        expect(n.path[n.path.length - 2]).toBe(n.parent);
        expect(taxonomy.byId(n.parent)!.group).toBe(n.group);
      }
      if (n.source === 'taxonomy') {
        expect(n.id).toBe(n.preset!.replaceAll('/', '.'));
        expect(n.parent === null || n.id.startsWith(`${n.parent}.`)).toBe(true);
      }
    }
  });

  it('put real OSM presets in the right groups', () => {
    const expected: Record<string, string> = {
      'amenity.cafe': 'cafe',
      'amenity.cafe.coffee_shop': 'cafe',
      'shop.hairdresser': 'hair-beauty',
      'shop.hairdresser.barber': 'hair-beauty',
      'shop.beauty.nails': 'hair-beauty',
      'shop.bakery': 'bakery',
      'amenity.dentist': 'dental',
      'healthcare.dentist.orthodontics': 'dental',
      'amenity.restaurant': 'restaurant',
      'amenity.restaurant.pizza': 'restaurant',
      'amenity.fast_food': 'restaurant',
      'amenity.pub': 'bar',
      'amenity.bar': 'bar',
      'shop.supermarket': 'grocery',
      'shop.butcher': 'grocery',
      'shop.clothes': 'shop',
      'shop.books': 'shop',
      'shop.massage': 'wellness',
      'leisure.fitness_centre': 'fitness',
      'leisure.fitness_centre.yoga': 'fitness',
      'amenity.doctors': 'health',
      'amenity.pharmacy': 'health',
      'healthcare.physiotherapist': 'therapy',
      'healthcare.psychotherapist': 'therapy',
      'craft.plumber': 'trades',
      'craft.electrician': 'trades',
      'shop.laundry': 'cleaning',
      'craft.cleaning': 'cleaning',
      'shop.car_repair': 'auto',
      'shop.repair': 'repair',
      'office.lawyer': 'legal',
      'office.notary': 'legal',
      'office.accountant': 'accounting',
      'office.consulting': 'consulting',
      'office.it': 'it-services',
      'education.language_school': 'education',
      'craft.caterer': 'events',
      'amenity.events_venue': 'venues',
      'craft.photographer': 'photography',
      'tourism.hotel': 'stay',
      'tourism.guest_house': 'stay',
      'shop.travel_agency': 'tours',
      'amenity.veterinary': 'pets',
      'shop.pet': 'pets',
      'shop.florist': 'florist',
      'craft.pottery': 'crafts',
    };
    for (const [id, group] of Object.entries(expected)) {
      expect(taxonomy.byId(id)?.group, id).toBe(group);
      expect(taxonomy.groupOf(id)?.slug, id).toBe(group);
    }
  });

  it('leave out unmapped, unsearchable, regional and top-level presets', () => {
    for (const id of [
      'amenity.bench',
      'amenity.parking',
      'amenity.atm',
      'leisure.park',
      'highway.residential',
      'shop',
      'craft',
      'shop.vacant',
      'amenity.school', // not searchable in the schema (education.school is)
      'office.bail_bond_agent-US-PH',
    ]) {
      expect(taxonomy.byId(id), id).toBeUndefined();
    }
    expect(taxonomy.byId('education.school')?.group).toBe('education');
  });

  it('carry names and terms of every language the schema has', () => {
    const cafe = taxonomy.byId('amenity.cafe')!;
    expect(cafe.label).toBe('Cafe');
    expect(cafe.labels.pt).toBe('Café');
    expect(Object.keys(cafe.labels).sort()).toEqual(['de', 'en', 'es', 'fr', 'pt', 'pt-BR']);
    expect(cafe.synonyms.en).toContain('coffee');
    expect(taxonomy.byId('shop.bakery')!.labels.pt).toBe('Padaria');
    expect(taxonomy.byId('shop.hairdresser')!.synonyms.pt).toContain('cabeleireiro');
  });

  it('know parents, children and descendants', () => {
    expect(taxonomy.byId('shop.hairdresser.barber')!.parent).toBe('shop.hairdresser');
    expect(taxonomy.byId('shop.hairdresser.barber')!.path).toEqual(['hair-beauty', 'shop.hairdresser', 'shop.hairdresser.barber']);
    expect(taxonomy.byId('shop.hairdresser')!.parent).toBeNull();
    expect(taxonomy.childrenOf('amenity.cafe').map((n) => n.id)).toContain('amenity.cafe.coffee_shop');
    const restaurants = taxonomy.descendantsOf('amenity.restaurant').map((n) => n.id);
    expect(restaurants[0]).toBe('amenity.restaurant');
    expect(restaurants).toContain('amenity.restaurant.pizza');
    expect(restaurants).toContain('amenity.restaurant.sushi');
    expect(restaurants).not.toContain('amenity.fast_food');
    for (const child of taxonomy.childrenOf('amenity.restaurant')) expect(restaurants).toContain(child.id);
    expect(taxonomy.descendantsOf('shop.bakery').map((n) => n.id)).toEqual(['shop.bakery']);
    expect(taxonomy.descendantsOf('no.such.id')).toEqual([]);
    expect(taxonomy.childrenOf('no.such.id')).toEqual([]);
    // A group slug: its top categories, and all of its categories.
    const tops = taxonomy.childrenOf('hair-beauty').map((n) => n.id);
    expect(tops).toContain('shop.hairdresser');
    expect(tops).not.toContain('shop.hairdresser.barber');
    expect(taxonomy.descendantsOf('hair-beauty').map((n) => n.id)).toContain('shop.hairdresser.barber');
    expect(taxonomy.groupOf('cafe')?.slug).toBe('cafe');
    expect(taxonomy.groupOf('nothing')).toBeUndefined();
  });

  it('give software-ai its own five categories without taxonomy', () => {
    const own = taxonomy.placeCategoriesInGroup('software-ai');
    expect(own.map((n) => n.id).sort()).toEqual(SOFTWARE_AI_IDS);
    for (const n of own) {
      expect(n.source).toBe('own');
      expect(n.preset).toBeUndefined();
      expect(n.kind).toBe('software_and_ai');
      expect(n.labels.en).toBeTruthy();
      expect(n.labels.pt).toBeTruthy();
      expect(Object.values(n.synonyms).flat().length).toBeGreaterThan(0);
      expect(taxonomy.taxonomyOf(n.id)).toBeNull();
      expect(n.parent).toBe(n.id === 'software_and_ai' ? null : 'software_and_ai');
    }
    expect(taxonomy.byId('software_and_ai.saas')!.path).toEqual(['software-ai', 'software_and_ai', 'software_and_ai.saas']);
    const words = own.flatMap((n) => Object.values(n.synonyms).flat()).map((w) => w!.toString().toLowerCase());
    for (const w of ['saas', 'ai', 'api', 'agents', 'llm']) expect(words).toContain(w);
    // Nothing else is of that kind or without taxonomy.
    for (const n of taxonomy.placeCategories) {
      if (n.group === 'software-ai') continue;
      expect(n.kind, n.id).toBe('local_and_retail');
      expect(n.source, n.id).toBe('taxonomy');
      expect(taxonomy.taxonomyOf(n.id)).toEqual(taxonomy.meta);
    }
  });

  it('say why regulated categories list members only', () => {
    for (const n of taxonomy.placeCategories) {
      if (REGULATED.includes(n.group)) expect(n.regulated, n.id).toMatch(/member/);
      else expect(n.regulated, n.id).toBeUndefined();
    }
  });

  it('map presets by the longest matching rule prefix', () => {
    expect(groupForPreset('shop/hairdresser/barber')).toBe('hair-beauty');
    expect(groupForPreset('shop/clothes')).toBe('shop');
    expect(groupForPreset('shop/vacant')).toBeNull();
    expect(groupForPreset('healthcare/alternative/acupuncture')).toBe('wellness');
    expect(groupForPreset('healthcare/midwife')).toBe('health');
    expect(groupForPreset('shop')).toBeNull();
    expect(groupForPreset('highway/residential')).toBeNull();
    for (const [prefix, group] of Object.entries(PRESET_RULES)) {
      expect(group === null || groupBySlug(group) !== undefined, prefix).toBe(true);
      expect(group, prefix).not.toBe('software-ai');
    }
  });
});

describe('category documents', () => {
  it('GET /v1/categories lists the groups, and with a group its place categories and taxonomy', () => {
    const all = categoriesDocument()!;
    expect(all.version).toBe(CATEGORIES_VERSION);
    expect(all.categories.map((c) => c.slug)).toEqual(EXPECTED_SLUGS);
    expect(all.place_categories).toBeUndefined();
    expect(all.taxonomy).toBeUndefined();

    const cafe = categoriesDocument('cafe')!;
    expect(cafe.place_categories).toContainEqual({ id: 'amenity.cafe', label: 'Cafe', parent: null, group: 'cafe' });
    expect(cafe.place_categories).toContainEqual({ id: 'amenity.cafe.coffee_shop', label: expect.any(String), parent: 'amenity.cafe', group: 'cafe' });
    expect(cafe.taxonomy).toEqual({ ...loadTaxonomy().meta, group: 'cafe' });

    const software = categoriesDocument('software-ai')!;
    expect(software.place_categories!.map((p) => p.id).sort()).toEqual(SOFTWARE_AI_IDS);
    expect(software.taxonomy).toBeUndefined();
    expect(categoriesDocument('nope')).toBeUndefined();
  });

  it('GET /c/{id} gives path, group, regulated and taxonomy where they apply', () => {
    const dentist = placeCategoryDocument('amenity.dentist')!;
    expect(dentist).toMatchObject({ id: 'amenity.dentist', label: 'Dentist', parent: null, path: ['dental', 'amenity.dentist'], group: 'dental' });
    expect(dentist.regulated).toEqual(expect.any(String));
    expect(dentist.taxonomy).toEqual(loadTaxonomy().meta);
    const saas = placeCategoryDocument('software_and_ai.saas')!;
    expect(saas.parent).toBe('software_and_ai');
    expect(saas.taxonomy).toBeUndefined();
    expect(saas.regulated).toBeUndefined();
    expect(placeCategoryDocument('amenity.cafe')!.regulated).toBeUndefined();
    expect(placeCategoryDocument('nope')).toBeUndefined();
  });
});

describe('resolveCategory', () => {
  it('finds a place category by id, with every category below it', () => {
    for (const term of ['amenity.cafe', 'amenity/cafe', 'AMENITY.CAFE']) {
      const r = resolveCategory(term);
      expect(r, term).toMatchObject({ type: 'place', id: 'amenity.cafe', group: 'cafe', kind: 'local_and_retail' });
      if (r?.type !== 'place') throw new Error('expected a place');
      expect(r.ids[0]).toBe('amenity.cafe');
      expect(r.ids).toContain('amenity.cafe.coffee_shop');
    }
    const leaf = resolveCategory('shop.bakery');
    expect(leaf).toEqual({ type: 'place', id: 'shop.bakery', group: 'bakery', kind: 'local_and_retail', ids: ['shop.bakery'] });
  });

  it('finds a group by slug, however it is written', () => {
    for (const term of ['hair-beauty', 'Hair-Beauty', 'hair beauty', 'hair_beauty', ' HAIR BEAUTY ']) {
      expect(resolveCategory(term), term).toEqual({ type: 'group', slug: 'hair-beauty', kind: 'local_and_retail' });
    }
    expect(resolveCategory('software-ai')).toEqual({ type: 'group', slug: 'software-ai', kind: 'software_and_ai' });
  });

  it('finds by English label', () => {
    expect(resolveCategory('Bakeries')).toMatchObject({ type: 'group', slug: 'bakery' });
    expect(resolveCategory('hairdresser')).toMatchObject({ type: 'place', id: 'shop.hairdresser', group: 'hair-beauty' });
    expect(resolveCategory('law office')).toMatchObject({ type: 'place', id: 'office.lawyer', group: 'legal' });
  });

  it('finds by Portuguese label with and without accents', () => {
    expect(resolveCategory('padaria')).toMatchObject({ type: 'place', id: 'shop.bakery', group: 'bakery' });
    expect(resolveCategory('Padarias')).toMatchObject({ type: 'group', slug: 'bakery' });
    for (const term of ['cabeleireiro', 'Cabeleireiro', 'CABELEIREIRO']) {
      const r = resolveCategory(term);
      expect(r, term).toMatchObject({ type: 'place', id: 'shop.hairdresser', group: 'hair-beauty' });
      if (r?.type === 'place') expect(r.ids).toContain('shop.hairdresser.barber');
    }
    for (const term of ['café', 'cafe', 'CAFÉ', 'Cafés']) {
      expect(resolveCategory(term), term).toEqual({ type: 'group', slug: 'cafe', kind: 'local_and_retail' });
    }
    expect(resolveCategory('Restaurante japonês')).toMatchObject({ type: 'place', id: 'amenity.restaurant.japanese' });
    expect(resolveCategory('restaurante japones')).toMatchObject({ type: 'place', id: 'amenity.restaurant.japanese' });
  });

  it('finds by synonym in any language', () => {
    expect(resolveCategory('barbearia')).toMatchObject({ type: 'group', slug: 'hair-beauty' });
    expect(resolveCategory('clinica dentaria')).toMatchObject({ type: 'group', slug: 'dental' });
    expect(resolveCategory('Zahnarzt')).toMatchObject({ group: 'dental' });
    expect(resolveCategory('coffee')).toMatchObject({ type: 'group', slug: 'cafe' });
    expect(resolveCategory('sushi')).toMatchObject({ type: 'place', group: 'restaurant' });
    expect(resolveCategory('saas')).toEqual({ type: 'group', slug: 'software-ai', kind: 'software_and_ai' });
    expect(resolveCategory('ai agents')).toMatchObject({ kind: 'software_and_ai' });
  });

  it('lets exact matches win over synonyms, and groups over place categories on a tie', () => {
    // 'padaria' is a synonym of the group bakery but the exact Portuguese name of shop.bakery.
    expect(groupBySlug('bakery')!.synonyms.pt).toContain('padaria');
    expect(resolveCategory('padaria')).toMatchObject({ type: 'place', id: 'shop.bakery' });
    // 'cafe' is the group's slug and the English name of amenity.cafe: the group wins.
    expect(loadTaxonomy().byId('amenity.cafe')!.label).toBe('Cafe');
    expect(resolveCategory('cafe')).toMatchObject({ type: 'group', slug: 'cafe' });
  });

  it('gives the kind of software-ai places', () => {
    expect(resolveCategory('software_and_ai.saas')).toEqual({
      type: 'place',
      id: 'software_and_ai.saas',
      group: 'software-ai',
      kind: 'software_and_ai',
      ids: ['software_and_ai.saas'],
    });
    expect(resolveCategory('software_and_ai')).toMatchObject({ kind: 'software_and_ai' });
  });

  it('returns null for an unknown or empty term', () => {
    expect(resolveCategory('xyzzy')).toBeNull();
    expect(resolveCategory('')).toBeNull();
    expect(resolveCategory('  -_ ')).toBeNull();
  });
});

describe('categoryCandidates', () => {
  const known = (key: string) => groupBySlug(key) !== undefined || loadTaxonomy().byId(key) !== undefined;

  it('offers up to five known slugs or ids most like a mistyped term', () => {
    const restaurant = categoryCandidates('restaurnt');
    expect(restaurant[0]).toBe('restaurant');
    expect(restaurant).toContain('amenity.restaurant');
    expect(categoryCandidates('padria')).toContain('bakery');
    expect(categoryCandidates('cabelereiro')).toContain('hair-beauty');
    expect(categoryCandidates('dentsit').slice(0, 2)).toEqual(['dental', 'amenity.dentist']);
    expect(categoryCandidates('softwre')[0]).toBe('software-ai');
    for (const term of ['restaurnt', 'hair', 'bake', 'italian food', 'photograpy']) {
      const list = categoryCandidates(term);
      expect(list.length, term).toBeGreaterThan(0);
      expect(list.length, term).toBeLessThanOrEqual(5);
      expect(new Set(list).size).toBe(list.length);
      for (const key of list) expect(known(key), key).toBe(true);
    }
  });

  it('puts names beginning with the term first and honours max', () => {
    expect(categoryCandidates('hair')[0]).toBe('hair-beauty');
    expect(categoryCandidates('restaurnt', 2)).toHaveLength(2);
    expect(categoryCandidates('restaurnt', 0)).toEqual([]);
  });

  it('offers nothing for a term like nothing', () => {
    expect(categoryCandidates('xyzzy')).toEqual([]);
    expect(categoryCandidates('')).toEqual([]);
  });
});

describe('categoryWords', () => {
  it('gives the folded words of labels and synonyms in every language', () => {
    const hair = categoryWords('hair-beauty');
    for (const w of ['hair', 'beauty', 'cabeleireiro', 'barbearia', 'salao', 'peluqueria', 'coiffure', 'friseur']) expect(hair).toContain(w);
    const cafe = categoryWords('amenity.cafe');
    for (const w of ['cafe', 'coffee', 'espresso', 'cafetaria']) expect(cafe).toContain(w);
    expect(categoryWords('software_and_ai.saas')).toContain('saas');
    for (const w of [...hair, ...cafe]) {
      expect(w).toBe(fold(w));
      expect(w).not.toMatch(/\s/);
      expect(w.length).toBeGreaterThan(1);
    }
    expect(categoryWords('nope')).toEqual([]);
  });

  it('cuts labels and synonyms with apostrophes as listing text is cut: the joined word and its parts', () => {
    // fr synonym of lodging: "chambre d’hôtes"; fr label of arts-crafts: "Artisanat d’art".
    const lodging = resolveCategory('chambre d’hôtes');
    expect(lodging).not.toBeNull();
    const key = lodging!.type === 'group' ? lodging!.slug : lodging!.id;
    for (const w of ['chambre', 'dhotes', 'hotes']) expect(categoryWords(key)).toContain(w);
    // Any apostrophe names it, as the index reads any apostrophe.
    expect(resolveCategory("chambre d'hotes")).toEqual(lodging);
    expect(resolveCategory('Chambre dʼHôtes')).toEqual(lodging);
  });
});

describe('attributes', () => {
  const doc = attributesDocument();

  it('document has version, keys and payments in the published shape', () => {
    expect(Number.isInteger(doc.version) && doc.version >= 1).toBe(true);
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
    const seen = new Set<string>();
    for (const k of doc.keys) {
      expect(seen.has(k.key), k.key).toBe(false);
      seen.add(k.key);
      expect(k.key).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(ATTRIBUTE_GROUPS).toContain(k.group);
      expect(['bool', 'enum']).toContain(k.type);
      expect(typeof k.filterable).toBe('boolean');
      for (const lang of ['en', 'pt', 'es', 'fr', 'de']) expect(k.labels[lang], `${k.key} ${lang}`).toBeTruthy();
      if (k.type === 'enum') expect(k.values!.length).toBeGreaterThan(0);
      else expect(k.values).toBeUndefined();
      expect(Object.keys(k).sort()).toEqual(
        (k.values ? ['filterable', 'group', 'key', 'labels', 'type', 'values'] : ['filterable', 'group', 'key', 'labels', 'type']).sort(),
      );
    }
    for (const key of ['delivery', 'takeaway', 'wifi', 'step_free_entrance', 'vegan_options', 'open_24h', 'free_estimates']) {
      expect(seen.has(key), key).toBe(true);
    }
    expect(Object.keys(doc.payments).sort()).toEqual(['agent', 'methods', 'wallets']);
    // Every payment token has its name, and only those.
    expect(Object.keys(doc.payment_labels).sort()).toEqual([...doc.payments.methods, ...doc.payments.wallets, ...doc.payments.agent].sort());
  });

  it('keys that need a register’s proof are not filterable', () => {
    const notFilterable = doc.keys.filter((k) => !k.filterable).map((k) => k.key).sort();
    expect(notFilterable).toEqual(['cert', 'halal', 'kosher']);
    const cert = attributeKey('cert')!;
    expect(cert.type).toBe('enum');
    expect(cert.values).toContain('b_corp');
    expect(attributeKey('halal')!.evidence).toBe('proof');
  });

  it('attributeKey and attributeValueAllowed', () => {
    expect(attributeKey('delivery')).toMatchObject({ key: 'delivery', group: 'service', type: 'bool', filterable: true });
    expect(attributeKey('nope')).toBeUndefined();
    expect(attributeValueAllowed('delivery', true)).toBe(true);
    expect(attributeValueAllowed('delivery', 'false')).toBe(true);
    expect(attributeValueAllowed('delivery', 'yes')).toBe(false);
    expect(attributeValueAllowed('cert', 'fairtrade')).toBe(true);
    expect(attributeValueAllowed('cert', 'made_up')).toBe(false);
    expect(attributeValueAllowed('nope', true)).toBe(false);
    for (const k of ATTRIBUTE_KEYS) {
      if (k.appliesTo === '*') continue;
      for (const slug of k.appliesTo) expect(groupBySlug(slug), `${k.key} → ${slug}`).toBeDefined();
    }
  });

  it('payment tokens are distinct, lower case and never a request kind', () => {
    const all = [...PAYMENTS.methods, ...PAYMENTS.wallets, ...PAYMENTS.agent];
    expect(new Set(all).size).toBe(all.length);
    for (const list of [PAYMENTS.methods, PAYMENTS.wallets, PAYMENTS.agent]) expect(list.length).toBeGreaterThan(0);
    for (const t of all) {
      expect(t).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(['ask', 'quote', 'book', 'order', 'pay']).not.toContain(t);
      expect(attributeKey(t)).toBeUndefined();
    }
    expect(isPaymentToken('pix')).toBe(true);
    expect(isPaymentToken('apple_pay')).toBe(true);
    expect(isPaymentToken('x402')).toBe(true);
    expect(isPaymentToken('book')).toBe(false);
    expect(isPaymentToken('PIX')).toBe(false);
    expect(paymentTokenGroup('card')).toBe('methods');
    expect(paymentTokenGroup('paypal')).toBe('wallets');
    expect(paymentTokenGroup('x402')).toBe('agent');
    expect(doc.payments.methods).toEqual([...PAYMENTS.methods]);
  });
});
