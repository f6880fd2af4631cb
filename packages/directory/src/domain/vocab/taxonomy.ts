/**
 * Place categories (directory spec §2 "Categories and attributes", §4 GET /v1/categories and
 * GET /c/{id}): the finer categories below our groups.
 *
 * For local and retail businesses they come from the OpenStreetMap iD tagging schema
 * (`@openstreetmap/id-tagging-schema`, ISC), read from the installed package: its presets give the
 * ids and the tree, its translations the names and search terms. Only searchable presets that are
 * businesses are taken, and only through the explicit rules of PRESET_RULES below; a preset that no
 * rule maps is left out. The group software-ai has categories of our own and no taxonomy.
 *
 * Ids: the preset id with '/' replaced by '.' (`amenity/cafe` → `amenity.cafe`). A category's parent
 * is the preset one level up when that preset is mapped too, in the same group; otherwise null and
 * the group is the root of its `path`.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Kind } from '../listings/listing.js';
import { CATEGORIES_VERSION, CATEGORY_GROUPS, categoryListEntries, groupBySlug, type CategoryGroup } from './groups.js';

export const TAXONOMY_LANGUAGES = ['en', 'pt', 'pt-BR', 'es', 'fr', 'de'] as const;
export type TaxonomyLanguage = (typeof TAXONOMY_LANGUAGES)[number];

export interface TaxonomyMeta {
  name: string;
  release: string;
  licence: string;
  url: string;
}

export interface PlaceCategory {
  id: string;
  /** English name. */
  label: string;
  /** Name per language (a language the source has no name in is absent). */
  labels: Partial<Record<TaxonomyLanguage, string>>;
  /** Search terms per language, as the source writes them. */
  synonyms: Partial<Record<TaxonomyLanguage, readonly string[]>>;
  parent: string | null;
  /** Slug of the group. */
  group: string;
  kind: Kind;
  /** [group slug, ...ancestor ids, id]. */
  path: readonly string[];
  /** Why businesses that are not members are not listed in it (regulated groups only). */
  regulated?: string;
  /** 'taxonomy' for categories of the OSM schema, 'own' for the service's own (software-ai). */
  source: 'taxonomy' | 'own';
  /** The OSM preset id and tags it came from (taxonomy categories only). */
  preset?: string;
  tags?: Readonly<Record<string, string>>;
}

export interface Taxonomy {
  meta: TaxonomyMeta;
  groups: readonly CategoryGroup[];
  /** Every place category, ordered by group (list order) then id. */
  placeCategories: readonly PlaceCategory[];
  byId(id: string): PlaceCategory | undefined;
  /** Direct children of a place category; for a group slug, the group's top categories. */
  childrenOf(id: string): PlaceCategory[];
  /** The category and every category below it (depth first); for a group slug, all of the group's. */
  descendantsOf(id: string): PlaceCategory[];
  placeCategoriesInGroup(slug: string): PlaceCategory[];
  /** The group of a place category id (or of a group slug itself). */
  groupOf(id: string): CategoryGroup | undefined;
  /** The taxonomy a category comes from: meta for taxonomy categories, null for our own or unknown. */
  taxonomyOf(id: string): TaxonomyMeta | null;
}

// ---------------------------------------------------------------------------------------------
// Mapping rules: preset id prefix → group slug (null: left out). Matching is by whole '/'-separated
// segments, and the longest matching prefix wins, so a specific rule overrides its key's default.
// Top-level presets (`shop`, `craft`, …) are never taken: they would be a second name for a group.
// ---------------------------------------------------------------------------------------------

export const PRESET_RULES: Readonly<Record<string, string | null>> = Object.freeze({
  // restaurant
  'amenity/restaurant': 'restaurant',
  'amenity/fast_food': 'restaurant',
  'amenity/food_court': 'restaurant',
  // cafe
  'amenity/cafe': 'cafe',
  'amenity/ice_cream': 'cafe',
  'amenity/internet_cafe': 'cafe',
  // bakery
  'shop/bakery': 'bakery',
  'shop/pastry': 'bakery',
  // bar
  'amenity/bar': 'bar',
  'amenity/pub': 'bar',
  'amenity/biergarten': 'bar',
  'amenity/nightclub': 'bar',
  'amenity/hookah_lounge': 'bar',
  'craft/brewery': 'bar',
  'craft/winery': 'bar',
  'craft/distillery': 'bar',
  // grocery
  'shop/supermarket': 'grocery',
  'shop/convenience': 'grocery',
  'shop/general': 'grocery',
  'shop/greengrocer': 'grocery',
  'shop/butcher': 'grocery',
  'shop/seafood': 'grocery',
  'shop/deli': 'grocery',
  'shop/cheese': 'grocery',
  'shop/dairy': 'grocery',
  'shop/frozen_food': 'grocery',
  'shop/farm': 'grocery',
  'shop/health_food': 'grocery',
  'shop/nutrition_supplements': 'grocery',
  'shop/spices': 'grocery',
  'shop/nuts': 'grocery',
  'shop/honey': 'grocery',
  'shop/pasta': 'grocery',
  'shop/rice': 'grocery',
  'shop/chocolate': 'grocery',
  'shop/confectionery': 'grocery',
  'shop/coffee': 'grocery',
  'shop/tea': 'grocery',
  'shop/water': 'grocery',
  'shop/beverages': 'grocery',
  'shop/wine': 'grocery',
  'shop/alcohol': 'grocery',
  'amenity/marketplace': 'grocery',
  // shop: every other shop preset, less what is not a business we list
  shop: 'shop',
  'shop/vacant': null,
  'shop/mall': null,
  'shop/money_lender': null,
  'shop/pawnbroker': null,
  'shop/gold_buyer': null,
  'shop/bookmaker': null,
  'shop/lottery': null,
  'shop/psychic': null,
  'shop/funeral_directors': null,
  // hair-beauty
  'shop/hairdresser': 'hair-beauty',
  'shop/beauty': 'hair-beauty',
  'shop/tattoo': 'hair-beauty',
  'shop/piercing': 'hair-beauty',
  // wellness
  'shop/massage': 'wellness',
  'leisure/sauna': 'wellness',
  'amenity/public_bath': 'wellness',
  'healthcare/alternative': 'wellness',
  // fitness
  'leisure/fitness_centre': 'fitness',
  'leisure/sports_centre': 'fitness',
  'leisure/sports_hall': 'fitness',
  'leisure/swimming_pool': 'fitness',
  'leisure/ice_rink': 'fitness',
  'leisure/horse_riding': 'fitness',
  'leisure/golf_course': 'fitness',
  'amenity/dojo': 'fitness',
  'club/sport': 'fitness',
  // health (regulated)
  healthcare: 'health',
  'healthcare/blood_donation': null,
  'amenity/doctors': 'health',
  'amenity/clinic': 'health',
  'amenity/hospital': 'health',
  'amenity/pharmacy': 'health',
  // dental (regulated)
  'amenity/dentist': 'dental',
  'healthcare/dentist': 'dental',
  // therapy (regulated)
  'healthcare/physiotherapist': 'therapy',
  'healthcare/psychotherapist': 'therapy',
  'healthcare/counselling': 'therapy',
  'healthcare/speech_therapist': 'therapy',
  'healthcare/occupational_therapist': 'therapy',
  'office/therapist': 'therapy',
  // trades
  'craft/plumber': 'trades',
  'craft/electrician': 'trades',
  'craft/carpenter': 'trades',
  'craft/joiner': 'trades',
  'craft/roofer': 'trades',
  'craft/painter': 'trades',
  'craft/plasterer': 'trades',
  'craft/tiler': 'trades',
  'craft/floorer': 'trades',
  'craft/parquet_layer': 'trades',
  'craft/carpet_layer': 'trades',
  'craft/insulator': 'trades',
  'craft/hvac': 'trades',
  'craft/glaziery': 'trades',
  'craft/window_construction': 'trades',
  'craft/metal_construction': 'trades',
  'craft/tinsmith': 'trades',
  'craft/stonemason': 'trades',
  'craft/scaffolder': 'trades',
  'craft/gardener': 'trades',
  'craft/key_cutter': 'trades',
  'shop/locksmith': 'trades',
  'office/moving_company': 'trades',
  // cleaning
  'craft/cleaning': 'cleaning',
  'craft/chimney_sweeper': 'cleaning',
  'shop/laundry': 'cleaning',
  'shop/dry_cleaning': 'cleaning',
  // auto
  'shop/car': 'auto',
  'shop/car_repair': 'auto',
  'shop/car_parts': 'auto',
  'shop/tyres': 'auto',
  'shop/motorcycle': 'auto',
  'shop/motorcycle_repair': 'auto',
  'shop/caravan': 'auto',
  'shop/fuel': 'auto',
  'amenity/car_wash': 'auto',
  'amenity/car_rental': 'auto',
  'amenity/motorcycle_rental': 'auto',
  'amenity/vehicle_inspection': 'auto',
  'amenity/fuel': 'auto',
  // repair
  'shop/repair': 'repair',
  'shop/shoe_repair': 'repair',
  'shop/tailor': 'repair',
  'craft/electronics_repair': 'repair',
  'craft/watchmaker': 'repair',
  'craft/clockmaker': 'repair',
  'craft/upholsterer': 'repair',
  'craft/agricultural_engines': 'repair',
  // legal (regulated)
  'office/lawyer': 'legal',
  'office/notary': 'legal',
  // accounting
  'office/accountant': 'accounting',
  'office/tax_advisor': 'accounting',
  'office/financial_advisor': 'accounting',
  'office/financial': 'accounting',
  // consulting
  'office/consulting': 'consulting',
  'office/advertising_agency': 'consulting',
  'office/graphic_design': 'consulting',
  'office/architect': 'consulting',
  'office/engineer': 'consulting',
  'office/surveyor': 'consulting',
  'office/employment_agency': 'consulting',
  'office/estate_agent': 'consulting',
  'office/property_management': 'consulting',
  'office/insurance': 'consulting',
  'office/translator': 'consulting',
  'office/private_investigator': 'consulting',
  // it-services
  'office/it': 'it-services',
  'office/telecommunication': 'it-services',
  // education
  education: 'education',
  'office/educational_institution': 'education',
  'amenity/childcare': 'education',
  'leisure/summer_camp': 'education',
  // events
  'craft/caterer': 'events',
  'shop/party': 'events',
  'shop/ticket': 'events',
  // venues
  'amenity/events_venue': 'venues',
  'amenity/conference_centre': 'venues',
  'amenity/exhibition_centre': 'venues',
  'amenity/theatre': 'venues',
  'amenity/theatre/type': null,
  'amenity/cinema': 'venues',
  'amenity/arts_centre': 'venues',
  'amenity/planetarium': 'venues',
  'amenity/casino': 'venues',
  'amenity/karaoke_box': 'venues',
  'amenity/studio/audio': 'venues',
  'office/coworking': 'venues',
  'leisure/escape_game': 'venues',
  'leisure/bowling_alley': 'venues',
  'leisure/amusement_arcade': 'venues',
  'leisure/trampoline_park': 'venues',
  'leisure/indoor_play': 'venues',
  'leisure/miniature_golf': 'venues',
  'leisure/water_park': 'venues',
  'leisure/dance': 'venues',
  // photography
  'craft/photographer': 'photography',
  'craft/photographic_laboratory': 'photography',
  'shop/photo': 'photography',
  // stay
  'tourism/hotel': 'stay',
  'tourism/motel': 'stay',
  'tourism/hostel': 'stay',
  'tourism/guest_house': 'stay',
  'tourism/chalet': 'stay',
  'tourism/apartment': 'stay',
  'tourism/camp_site': 'stay',
  'tourism/camp_site/backcountry': null,
  'tourism/caravan_site': 'stay',
  'tourism/alpine_hut': 'stay',
  'amenity/love_hotel': 'stay',
  'leisure/resort': 'stay',
  'leisure/beach_resort': 'stay',
  // tours
  'shop/travel_agency': 'tours',
  'office/guide': 'tours',
  'office/travel_agent': 'tours',
  'amenity/boat_rental': 'tours',
  'amenity/bicycle_rental': 'tours',
  'amenity/dive_centre': 'tours',
  'tourism/museum': 'tours',
  'tourism/zoo': 'tours',
  'tourism/aquarium': 'tours',
  'tourism/theme_park': 'tours',
  // pets
  'shop/pet': 'pets',
  'shop/pet_grooming': 'pets',
  'amenity/veterinary': 'pets',
  'amenity/veterinary_pharmacy': 'pets',
  'amenity/animal_boarding': 'pets',
  'amenity/animal_breeding': 'pets',
  'amenity/animal_shelter': 'pets',
  // florist
  'shop/florist': 'florist',
  'shop/garden_centre': 'florist',
  // crafts: every other craft preset, and the art and craft shops
  craft: 'crafts',
  'craft/sawmill': null,
  'craft/rigger': null,
  'shop/craft': 'crafts',
  'shop/art': 'crafts',
  'shop/pottery': 'crafts',
  'shop/frame': 'crafts',
  'shop/fabric': 'crafts',
  'shop/sewing': 'crafts',
  'tourism/gallery': 'crafts',
});

/** The group a preset id maps to by PRESET_RULES (the longest matching prefix), or null. */
export function groupForPreset(presetId: string): string | null {
  const parts = presetId.split('/');
  if (parts.length < 2) return null;
  for (let n = parts.length; n >= 1; n--) {
    const prefix = parts.slice(0, n).join('/');
    if (Object.hasOwn(PRESET_RULES, prefix)) return PRESET_RULES[prefix] ?? null;
  }
  return null;
}

/** Preset ids we take: lower-case ids only (regional variants such as `…-US-PH` are left out). */
const PRESET_ID = /^[a-z0-9_-]+(?:\/[a-z0-9_-]+)+$/;

// ---------------------------------------------------------------------------------------------
// The service's own categories of the group software-ai (no taxonomy).
// ---------------------------------------------------------------------------------------------

interface OwnCategoryInput {
  id: string;
  parent: string | null;
  labels: Partial<Record<TaxonomyLanguage, string>> & { en: string; pt: string };
  synonyms: Partial<Record<TaxonomyLanguage, readonly string[]>>;
}

const SOFTWARE_AI_CATEGORIES: readonly OwnCategoryInput[] = [
  {
    id: 'software_and_ai',
    parent: null,
    labels: { en: 'Software and AI', pt: 'Software e IA', es: 'Software e IA', fr: 'Logiciels et IA', de: 'Software und KI' },
    synonyms: {
      en: ['software', 'software company', 'ai', 'artificial intelligence', 'api', 'tech company'],
      pt: ['software', 'empresa de software', 'ia', 'inteligência artificial', 'api', 'tecnologia'],
      es: ['software', 'ia', 'inteligencia artificial'],
      fr: ['logiciel', 'ia', 'intelligence artificielle'],
      de: ['software', 'ki', 'künstliche intelligenz'],
    },
  },
  {
    id: 'software_and_ai.saas',
    parent: 'software_and_ai',
    labels: { en: 'Software as a service', pt: 'Software como serviço', es: 'Software como servicio', fr: 'Logiciel en tant que service', de: 'Software as a Service' },
    synonyms: {
      en: ['saas', 'web app', 'cloud software', 'subscription software', 'online software'],
      pt: ['saas', 'aplicação web', 'software na nuvem', 'software por subscrição', 'software online'],
      es: ['saas', 'aplicación web', 'software en la nube'],
      fr: ['saas', 'application web', 'logiciel en ligne'],
      de: ['saas', 'webanwendung', 'cloud software'],
    },
  },
  {
    id: 'software_and_ai.developer_tools',
    parent: 'software_and_ai',
    labels: { en: 'Developer tools and APIs', pt: 'Ferramentas e APIs para programadores', es: 'Herramientas y APIs para desarrolladores', fr: 'Outils et API pour développeurs', de: 'Entwicklerwerkzeuge und APIs' },
    synonyms: {
      en: ['api', 'apis', 'sdk', 'developer tools', 'devtools', 'developer platform', 'open source'],
      pt: ['api', 'apis', 'sdk', 'ferramentas de programação', 'plataforma para programadores', 'código aberto'],
      es: ['api', 'sdk', 'herramientas de desarrollo'],
      fr: ['api', 'sdk', 'outils de développement'],
      de: ['api', 'sdk', 'entwicklertools'],
    },
  },
  {
    id: 'software_and_ai.ai_agents',
    parent: 'software_and_ai',
    labels: { en: 'AI agents and models', pt: 'Agentes e modelos de IA', es: 'Agentes y modelos de IA', fr: 'Agents et modèles d’IA', de: 'KI-Agenten und Modelle' },
    synonyms: {
      en: ['ai agents', 'agents', 'agent', 'llm', 'language model', 'chatbot', 'assistant', 'mcp server', 'generative ai'],
      pt: ['agentes de ia', 'agentes', 'agente', 'llm', 'modelo de linguagem', 'chatbot', 'assistente', 'ia generativa'],
      es: ['agentes de ia', 'agentes', 'llm', 'modelo de lenguaje', 'chatbot', 'asistente', 'ia generativa'],
      fr: ['agents ia', 'agents', 'llm', 'modèle de langage', 'chatbot', 'assistant', 'ia générative'],
      de: ['ki agenten', 'agenten', 'llm', 'sprachmodell', 'chatbot', 'assistent', 'generative ki'],
    },
  },
  {
    id: 'software_and_ai.it_infrastructure',
    parent: 'software_and_ai',
    labels: { en: 'Cloud and IT infrastructure', pt: 'Nuvem e infraestrutura informática', es: 'Nube e infraestructura informática', fr: 'Cloud et infrastructure informatique', de: 'Cloud und IT-Infrastruktur' },
    synonyms: {
      en: ['cloud', 'hosting', 'infrastructure', 'servers', 'database', 'devops', 'security', 'paas', 'iaas'],
      pt: ['nuvem', 'alojamento web', 'hospedagem', 'infraestrutura', 'servidores', 'base de dados', 'cibersegurança'],
      es: ['nube', 'hosting', 'infraestructura', 'servidores', 'base de datos', 'ciberseguridad'],
      fr: ['cloud', 'hébergement', 'infrastructure', 'serveurs', 'base de données', 'cybersécurité'],
      de: ['cloud', 'hosting', 'infrastruktur', 'server', 'datenbank', 'it sicherheit'],
    },
  },
];

const OWN_GROUP = 'software-ai';

// ---------------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------------

interface RawPreset {
  tags?: Record<string, string>;
  searchable?: boolean;
  name?: string;
}
interface RawTranslation {
  name?: string;
  terms?: string;
  aliases?: string;
}

const PACKAGE = '@openstreetmap/id-tagging-schema';

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

function splitTerms(text: string | undefined, separator: string | RegExp): string[] {
  if (!text) return [];
  return text
    .split(separator)
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
}

function uniqueCaseless(words: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const w of words) {
    const k = w.toLowerCase();
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(w);
  }
  return out;
}

function presetIdToCategoryId(presetId: string): string {
  return presetId.replaceAll('/', '.');
}

function buildTaxonomy(): Taxonomy {
  const require = createRequire(import.meta.url);
  const packageJsonPath = require.resolve(`${PACKAGE}/package.json`);
  const root = dirname(packageJsonPath);
  const pkg = readJson<{ version: string; license?: string }>(packageJsonPath);
  const meta: TaxonomyMeta = Object.freeze({
    name: 'OpenStreetMap iD tagging schema',
    release: pkg.version,
    licence: 'ISC',
    url: 'https://github.com/openstreetmap/id-tagging-schema',
  });

  const presets = readJson<Record<string, RawPreset>>(join(root, 'dist', 'presets.json'));
  const translations = {} as Record<TaxonomyLanguage, Record<string, RawTranslation>>;
  for (const lang of TAXONOMY_LANGUAGES) {
    const doc = readJson<Record<string, { presets?: { presets?: Record<string, RawTranslation> } }>>(
      join(root, 'dist', 'translations', `${lang}.json`),
    );
    translations[lang] = doc[lang]?.presets?.presets ?? {};
  }

  /** The name of a preset in a language, following a `{other/preset}` name reference once. */
  const nameOf = (lang: TaxonomyLanguage, presetId: string): string | undefined => {
    const own = translations[lang][presetId]?.name?.trim();
    if (own) return own;
    const ref = /^\{(.+)\}$/.exec(presets[presetId]?.name ?? '')?.[1];
    return ref ? translations[lang][ref]?.name?.trim() || undefined : undefined;
  };

  // 1. Which presets, in which group.
  const chosen = new Map<string, string>(); // preset id → group slug
  for (const [presetId, preset] of Object.entries(presets)) {
    if (preset.searchable === false || !PRESET_ID.test(presetId)) continue;
    const group = groupForPreset(presetId);
    if (group === null || group === OWN_GROUP || !groupBySlug(group)) continue;
    if (!nameOf('en', presetId)) continue;
    chosen.set(presetId, group);
  }

  // 2. Nodes with parents (the preset one level up, when chosen in the same group).
  const nodes = new Map<string, PlaceCategory>();
  const parentOf = new Map<string, string | null>();
  for (const [presetId, group] of chosen) {
    const up = presetId.split('/').slice(0, -1).join('/');
    const parent = up.includes('/') && chosen.get(up) === group ? presetIdToCategoryId(up) : null;
    const labels: Partial<Record<TaxonomyLanguage, string>> = {};
    const synonyms: Partial<Record<TaxonomyLanguage, readonly string[]>> = {};
    for (const lang of TAXONOMY_LANGUAGES) {
      const name = nameOf(lang, presetId);
      if (name) labels[lang] = name;
      const t = translations[lang][presetId];
      const words = uniqueCaseless([...splitTerms(t?.terms, ','), ...splitTerms(t?.aliases, '\n')]);
      if (words.length > 0) synonyms[lang] = Object.freeze(words);
    }
    const id = presetIdToCategoryId(presetId);
    parentOf.set(id, parent);
    const g = groupBySlug(group)!;
    const node: PlaceCategory = {
      id,
      label: labels.en!,
      labels: Object.freeze(labels),
      synonyms: Object.freeze(synonyms),
      parent,
      group,
      kind: g.kind,
      path: [],
      source: 'taxonomy',
      preset: presetId,
      tags: Object.freeze({ ...(presets[presetId]?.tags ?? {}) }),
    };
    if (g.regulated) node.regulated = g.regulated;
    nodes.set(id, node);
  }

  // 3. Our own categories of software-ai.
  const own = groupBySlug(OWN_GROUP);
  if (own) {
    for (const input of SOFTWARE_AI_CATEGORIES) {
      const synonyms: Partial<Record<TaxonomyLanguage, readonly string[]>> = {};
      for (const [lang, words] of Object.entries(input.synonyms) as [TaxonomyLanguage, readonly string[]][]) {
        synonyms[lang] = Object.freeze(uniqueCaseless([...words]));
      }
      parentOf.set(input.id, input.parent);
      nodes.set(input.id, {
        id: input.id,
        label: input.labels.en,
        labels: Object.freeze({ ...input.labels }),
        synonyms: Object.freeze(synonyms),
        parent: input.parent,
        group: OWN_GROUP,
        kind: own.kind,
        path: [],
        source: 'own',
      });
    }
  }

  // 4. Paths, children, order.
  const children = new Map<string, string[]>();
  for (const [id, parent] of parentOf) {
    if (parent === null) continue;
    const list = children.get(parent) ?? [];
    list.push(id);
    children.set(parent, list);
  }
  for (const list of children.values()) list.sort();
  const groupOrder = new Map(CATEGORY_GROUPS.map((g, i) => [g.slug, i]));
  for (const node of nodes.values()) {
    const ancestors: string[] = [];
    for (let p = node.parent; p !== null; p = parentOf.get(p) ?? null) ancestors.unshift(p);
    node.path = Object.freeze([node.group, ...ancestors, node.id]);
    Object.freeze(node);
  }
  const placeCategories: readonly PlaceCategory[] = Object.freeze(
    [...nodes.values()].sort(
      (a, b) => groupOrder.get(a.group)! - groupOrder.get(b.group)! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    ),
  );
  const inGroup = new Map<string, PlaceCategory[]>();
  for (const node of placeCategories) {
    const list = inGroup.get(node.group) ?? [];
    list.push(node);
    inGroup.set(node.group, list);
  }

  const byId = (id: string): PlaceCategory | undefined => nodes.get(id);
  const childrenOf = (id: string): PlaceCategory[] => {
    if (nodes.has(id)) return (children.get(id) ?? []).map((c) => nodes.get(c)!);
    if (groupBySlug(id)) return (inGroup.get(id) ?? []).filter((n) => n.parent === null);
    return [];
  };
  const descendantsOf = (id: string): PlaceCategory[] => {
    const start = nodes.get(id);
    if (!start) return groupBySlug(id) ? [...(inGroup.get(id) ?? [])] : [];
    const out: PlaceCategory[] = [];
    const walk = (n: PlaceCategory): void => {
      out.push(n);
      for (const c of children.get(n.id) ?? []) walk(nodes.get(c)!);
    };
    walk(start);
    return out;
  };

  return Object.freeze({
    meta,
    groups: CATEGORY_GROUPS,
    placeCategories,
    byId,
    childrenOf,
    descendantsOf,
    placeCategoriesInGroup: (slug: string) => [...(inGroup.get(slug) ?? [])],
    groupOf: (id: string) => groupBySlug(nodes.get(id)?.group ?? id),
    taxonomyOf: (id: string) => (nodes.get(id)?.source === 'taxonomy' ? meta : null),
  });
}

let loaded: Taxonomy | undefined;

/** The taxonomy, read from the installed package on first use and kept for the process. */
export function loadTaxonomy(): Taxonomy {
  loaded ??= buildTaxonomy();
  return loaded;
}

// ---------------------------------------------------------------------------------------------
// Documents of GET /v1/categories and GET /c/{id}
// ---------------------------------------------------------------------------------------------

export interface PlaceCategoryEntry {
  id: string;
  label: string;
  parent: string | null;
  group: string;
}

export interface CategoriesDocument {
  version: number;
  categories: { slug: string; labels: Record<string, string>; kind: Kind }[];
  place_categories?: PlaceCategoryEntry[];
  taxonomy?: TaxonomyMeta & { group: string };
}

export interface PlaceCategoryDocument {
  id: string;
  label: string;
  parent: string | null;
  path: string[];
  group: string;
  regulated?: string;
  taxonomy?: TaxonomyMeta;
}

/** Body of GET /c/{id}, or undefined for an unknown id (404). */
export function placeCategoryDocument(id: string): PlaceCategoryDocument | undefined {
  const taxonomy = loadTaxonomy();
  const node = taxonomy.byId(id);
  if (!node) return undefined;
  const doc: PlaceCategoryDocument = { id: node.id, label: node.label, parent: node.parent, path: [...node.path], group: node.group };
  if (node.regulated) doc.regulated = node.regulated;
  const meta = taxonomy.taxonomyOf(node.id);
  if (meta) doc.taxonomy = { ...meta };
  return doc;
}

/**
 * Body of GET /v1/categories; with a group slug it adds the group's place categories and, for a
 * group whose categories come from the taxonomy, the taxonomy (each with the group's slug).
 * Undefined for an unknown group.
 */
export function categoriesDocument(group?: string): CategoriesDocument | undefined {
  const doc: CategoriesDocument = { version: CATEGORIES_VERSION, categories: categoryListEntries() };
  if (group === undefined) return doc;
  if (!groupBySlug(group)) return undefined;
  const taxonomy = loadTaxonomy();
  const nodes = taxonomy.placeCategoriesInGroup(group);
  doc.place_categories = nodes.map((n) => ({ id: n.id, label: n.label, parent: n.parent, group: n.group }));
  if (nodes.some((n) => n.source === 'taxonomy')) doc.taxonomy = { ...taxonomy.meta, group };
  return doc;
}
