/**
 * schema.org data a site publishes as JSON-LD (read as data; nothing in a page is run): the business
 * it describes (LocalBusiness and its types, Organization, software), where and when it is open,
 * what it offers (Offer, catalogues, menus), its return terms (MerchantReturnPolicy) and the
 * actions it declares (ReserveAction, OrderAction, RegisterAction…). Only what the business says
 * about itself is kept; telephone and e-mail are never read.
 */
import type { CapabilityId } from './capabilities.js';
import type { Evidence, SiteFacts } from './observation.js';
import { attributesOf, paymentsOf } from './published-terms.js';
import { cleanText } from './site-text.js';

type Node = Record<string, unknown>;

const MAX_NODES = 400;
const MAX_DEPTH = 8;

/** Types that say "a business" (with every type ending in Store, Business, Service, Establishment or Organization). */
const BUSINESS_TYPES = new Set([
  'LocalBusiness', 'Organization', 'Corporation', 'Restaurant', 'Bakery', 'CafeOrCoffeeShop', 'BarOrPub', 'Winery', 'Brewery', 'FastFoodRestaurant',
  'IceCreamShop', 'HairSalon', 'BeautySalon', 'NailSalon', 'DaySpa', 'HealthClub', 'ExerciseGym', 'SportsClub', 'Dentist', 'Physician', 'MedicalClinic',
  'Pharmacy', 'Optician', 'Florist', 'Plumber', 'Electrician', 'Locksmith', 'RoofingContractor', 'HousePainter', 'GeneralContractor', 'HVACBusiness',
  'MovingCompany', 'AutoRepair', 'AutoDealer', 'AutoWash', 'GasStation', 'Hotel', 'Motel', 'Hostel', 'BedAndBreakfast', 'Campground', 'Resort',
  'LodgingBusiness', 'VacationRental', 'LegalService', 'Attorney', 'Notary', 'AccountingService', 'FinancialService', 'InsuranceAgency', 'RealEstateAgent',
  'TravelAgency', 'TouristInformationCenter', 'ChildCare', 'Library', 'EducationalOrganization', 'School', 'EventVenue', 'MusicVenue', 'NightClub',
  'Photograph', 'ProfessionalService', 'EmploymentAgency', 'VeterinaryCare', 'PetStore', 'AnimalShelter', 'TattooParlor', 'DryCleaningOrLaundry',
  'Bakery', 'Distillery', 'FoodEstablishment', 'EntertainmentBusiness', 'SportsActivityLocation', 'BowlingAlley', 'GolfCourse', 'Spa',
]);
/** schema.org types whose own words name no category of ours, with words that do. */
const TYPE_WORDS: Readonly<Record<string, string>> = {
  CafeOrCoffeeShop: 'cafe', AutoRepair: 'car repair', AutomotiveBusiness: 'garage', ExerciseGym: 'gym', HealthClub: 'gym', BarOrPub: 'bar', DaySpa: 'spa',
  LodgingBusiness: 'hotel', BedAndBreakfast: 'bed and breakfast', EducationalOrganization: 'school', LegalService: 'lawyer', Attorney: 'lawyer',
  AccountingService: 'accountant', TravelAgency: 'travel agency', PetStore: 'pet shop', GroceryStore: 'grocery', HVACBusiness: 'electrician',
  GeneralContractor: 'builder', HousePainter: 'painter', RoofingContractor: 'roofer', VeterinaryCare: 'vet', MedicalClinic: 'clinic', Physician: 'doctor',
  IceCreamShop: 'cafe', FastFoodRestaurant: 'restaurant', FoodEstablishment: 'restaurant', NightClub: 'bar', Winery: 'bar', Brewery: 'bar',
};
const SOFTWARE_TYPES = new Set(['SoftwareApplication', 'WebApplication', 'MobileApplication', 'WebAPI', 'SoftwareSourceCode']);

/** Actions a page declares: what an agent could do there, through a web page (so partly). */
const ACTION_CAPABILITIES: Readonly<Record<string, CapabilityId>> = {
  ReserveAction: 'book',
  ScheduleAction: 'book',
  OrderAction: 'order',
  BuyAction: 'order',
  RegisterAction: 'signup',
  JoinAction: 'signup',
  SubscribeAction: 'subscription',
  CommunicateAction: 'message',
  AskAction: 'message',
  ContactAction: 'message',
  TrackAction: 'track',
  ReviewAction: 'feedback',
  ReturnAction: 'return',
  CancelAction: 'cancel',
  PayAction: 'pay',
  SearchAction: 'find',
};

const DAYS: Readonly<Record<string, 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun'>> = {
  monday: 'mon', tuesday: 'tue', wednesday: 'wed', thursday: 'thu', friday: 'fri', saturday: 'sat', sunday: 'sun',
  mo: 'mon', tu: 'tue', we: 'wed', th: 'thu', fr: 'fri', sa: 'sat', su: 'sun',
};
const DAY_ORDER = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

function typesOf(node: Node): string[] {
  const raw = node['@type'];
  const list = Array.isArray(raw) ? raw : [raw];
  return list.filter((t): t is string => typeof t === 'string').map((t) => t.replace(/^https?:\/\/schema\.org\//, '').trim()).filter((t) => /^[A-Za-z]{2,60}$/.test(t));
}

function isBusinessType(type: string): boolean {
  return BUSINESS_TYPES.has(type) || /(Store|Business|Service|Establishment|Organization|Shop|Salon|Restaurant|Contractor)$/.test(type);
}

/** Every object node of the documents, depth-first, bounded. */
function nodesOf(documents: readonly unknown[]): Node[] {
  const out: Node[] = [];
  const visit = (value: unknown, depth: number) => {
    if (out.length >= MAX_NODES || depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    const node = value as Node;
    if (node['@type'] !== undefined) out.push(node);
    for (const [key, child] of Object.entries(node)) if (key !== '@context') visit(child, depth + 1);
  };
  for (const document of documents) visit(document, 0);
  return out;
}

function text(node: Node | undefined, key: string, max: number): string | null {
  if (!node) return null;
  const value = node[key];
  if (typeof value === 'string') return cleanText(value, max);
  if (value && typeof value === 'object' && !Array.isArray(value) && typeof (value as Node).name === 'string') return cleanText((value as Node).name, max);
  return null;
}

function objectAt(node: Node, key: string): Node | undefined {
  const value = node[key];
  const first = Array.isArray(value) ? value[0] : value;
  return first && typeof first === 'object' ? (first as Node) : undefined;
}

function number(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
  return Number.isFinite(n) ? n : null;
}

const TIME = /^([01]?\d|2[0-3]):([0-5]\d)(:[0-5]\d)?$/;
function hhmm(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = TIME.exec(value.trim());
  return match ? `${(match[1] as string).padStart(2, '0')}:${match[2]}` : null;
}

type Weekly = NonNullable<SiteFacts['hours']>['v']['weekly'];

function addWindow(weekly: Weekly, day: (typeof DAY_ORDER)[number], opens: string, closes: string): void {
  const windows = (weekly[day] ??= []);
  if (windows.length < 6 && !windows.some(([o, c]) => o === opens && c === closes)) windows.push([opens, closes]);
}

function dayOf(value: unknown): (typeof DAY_ORDER)[number] | null {
  if (typeof value !== 'string') return null;
  const key = value.replace(/^https?:\/\/schema\.org\//, '').trim().toLowerCase();
  return DAYS[key] ?? null;
}

/** openingHoursSpecification objects and openingHours strings ("Mo-Fr 09:00-18:00"). */
function weeklyOf(node: Node): Weekly | null {
  const weekly: Weekly = {};
  const specs = node.openingHoursSpecification;
  for (const spec of Array.isArray(specs) ? specs : specs ? [specs] : []) {
    if (!spec || typeof spec !== 'object') continue;
    const s = spec as Node;
    const opens = hhmm(s.opens);
    const closes = hhmm(s.closes);
    if (!opens || !closes) continue;
    const days = Array.isArray(s.dayOfWeek) ? s.dayOfWeek : [s.dayOfWeek];
    for (const d of days) {
      const day = dayOf(d);
      if (day) addWindow(weekly, day, opens, closes);
    }
  }
  const strings = node.openingHours;
  for (const line of Array.isArray(strings) ? strings : typeof strings === 'string' ? [strings] : []) {
    if (typeof line !== 'string') continue;
    const match = /^\s*([A-Za-z]{2})(?:\s*-\s*([A-Za-z]{2}))?((?:\s*,\s*[A-Za-z]{2})*)\s+(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s*$/.exec(line);
    if (!match) continue;
    const from = dayOf(match[1]);
    const to = match[2] ? dayOf(match[2]) : from;
    const opens = hhmm(match[4]);
    const closes = hhmm(match[5]);
    if (!from || !to || !opens || !closes) continue;
    const a = DAY_ORDER.indexOf(from);
    const b = DAY_ORDER.indexOf(to);
    for (let i = a; i <= (b >= a ? b : a); i++) addWindow(weekly, DAY_ORDER[i] as (typeof DAY_ORDER)[number], opens, closes);
    for (const extra of (match[3] ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
      const day = dayOf(extra);
      if (day) addWindow(weekly, day, opens, closes);
    }
  }
  return Object.keys(weekly).length > 0 ? weekly : null;
}

function priceBandOf(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const match = /^\s*([$€£¥₩₹])\1{0,3}\s*$/u.exec(value);
  return match ? [...value.trim()].length : null;
}

function countryOf(value: unknown): string | null {
  const raw = typeof value === 'string' ? value : value && typeof value === 'object' ? (value as Node).name : null;
  return typeof raw === 'string' && /^[A-Za-z]{2}$/.test(raw.trim()) ? raw.trim().toUpperCase() : null;
}

function languagesOf(node: Node): string[] {
  const out = new Set<string>();
  for (const key of ['inLanguage', 'availableLanguage']) {
    const value = node[key];
    for (const item of Array.isArray(value) ? value : [value]) {
      const tag = typeof item === 'string' ? item : item && typeof item === 'object' ? (item as Node).alternateName : null;
      if (typeof tag === 'string' && /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i.test(tag.trim())) out.add(tag.trim().toLowerCase());
    }
  }
  return [...out].slice(0, 10);
}

export interface SchemaOrgReading {
  facts: Partial<SiteFacts>;
  evidence: Evidence[];
  /** The page holds schema.org data an agent can read. */
  readable: boolean;
}

export function readSchemaOrg(documents: readonly unknown[], pageUrl: string): SchemaOrgReading {
  const nodes = nodesOf(documents);
  const facts: Partial<SiteFacts> = { categoryTerms: [], software: false, business: false };
  const evidence: Evidence[] = [];
  if (nodes.length === 0) return { facts, evidence, readable: false };
  const via = 'schema.org JSON-LD';
  const seen = <T>(v: T) => ({ v, url: pageUrl, via });
  const add = (capability: CapabilityId, state: 'yes' | 'partial', what: string) => {
    if (!evidence.some((e) => e.capability === capability && e.state === state)) {
      evidence.push({ capability, state, basis: 'structured_data', via: `${via}: ${what}`, sourceUrl: pageUrl });
    }
  };

  const business = nodes.find((n) => typesOf(n).some(isBusinessType)) ?? nodes.find((n) => typesOf(n).some((t) => SOFTWARE_TYPES.has(t)));
  for (const node of nodes) {
    const types = typesOf(node);
    if (types.some((t) => SOFTWARE_TYPES.has(t))) facts.software = true;
    for (const type of types) {
      const capability = ACTION_CAPABILITIES[type];
      // An action names a web page or a URL template: an agent could act there, through a page.
      if (capability) add(capability, capability === 'find' ? 'yes' : 'partial', type);
      if (type === 'MerchantReturnPolicy') add('policies', 'yes', 'MerchantReturnPolicy');
      if (type === 'Offer' || type === 'AggregateOffer' || type === 'OfferCatalog' || type === 'Menu' || type === 'Product') add('catalogue', 'yes', type);
    }
  }
  if (business) {
    facts.business = true;
    const types = typesOf(business);
    facts.categoryTerms = types
      .filter((t) => t !== 'LocalBusiness' && t !== 'Organization' && t !== 'Corporation')
      .map((t) => TYPE_WORDS[t] ?? t.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase());
    if (types.some((t) => SOFTWARE_TYPES.has(t))) facts.categoryTerms.push('software');
    const keywords = typeof business.keywords === 'string' ? business.keywords.split(',') : Array.isArray(business.keywords) ? business.keywords : [];
    for (const keyword of keywords.slice(0, 5)) {
      const term = cleanText(keyword, 40);
      if (term) facts.categoryTerms.push(term.toLowerCase());
    }
    const cuisine = business.servesCuisine;
    for (const c of Array.isArray(cuisine) ? cuisine : [cuisine]) {
      const term = cleanText(c, 40);
      if (term) facts.categoryTerms.push(term.toLowerCase());
    }
    const name = text(business, 'name', 120);
    if (name) facts.name = seen(name);
    const description = text(business, 'description', 500);
    if (description) facts.description = seen(description);
    const address = objectAt(business, 'address');
    const locality = text(address, 'addressLocality', 80);
    if (locality) facts.locality = seen(locality);
    const region = text(address, 'addressRegion', 80);
    if (region) facts.region = seen(region);
    const country = address ? countryOf(address.addressCountry) : null;
    if (country) facts.country = seen(country);
    const geo = objectAt(business, 'geo');
    const lat = geo ? number(geo.latitude) : null;
    const lng = geo ? number(geo.longitude) : null;
    if (lat !== null && lng !== null && Math.abs(lat) <= 90 && Math.abs(lng) <= 180 && !(lat === 0 && lng === 0)) facts.geo = seen({ lat, lng });
    const weekly = weeklyOf(business);
    if (weekly) facts.hours = seen({ weekly, timezone: null });
    const band = priceBandOf(business.priceRange);
    if (band !== null) facts.priceBand = seen(band);
    const languages = languagesOf(business);
    if (languages.length > 0) facts.languages = seen(languages);
    const payments = paymentsOf(business.paymentAccepted);
    if (payments.length > 0) facts.payments = seen(payments);
    const attributes = attributesOf(business);
    if (Object.keys(attributes).length > 0) facts.attributes = seen(attributes);
    const services: { name: string; type: 'booking' | 'order' | 'quote_request' }[] = [];
    for (const node of nodes) {
      const types = typesOf(node);
      if (!types.includes('Offer') && !types.includes('Service') && !types.includes('Product') && !types.includes('MenuItem')) continue;
      const item = types.includes('Offer') ? (objectAt(node, 'itemOffered') ?? node) : node;
      const serviceName = text(item, 'name', 80);
      if (!serviceName || services.some((s) => s.name === serviceName)) continue;
      const itemTypes = typesOf(item);
      services.push({ name: serviceName, type: itemTypes.includes('Service') ? 'booking' : 'order' });
      if (services.length >= 30) break;
    }
    if (services.length > 0) facts.services = seen(services);
    if (name && (locality || facts.geo || facts.software)) add('find', 'yes', `${types[0] ?? 'LocalBusiness'} with name and place`);
    else if (name) add('find', 'partial', `${types[0] ?? 'LocalBusiness'} with a name only`);
    if (business.hasMerchantReturnPolicy) add('policies', 'yes', 'hasMerchantReturnPolicy');
    if (business.hasOfferCatalog || business.makesOffer || business.hasMenu || business.menu) add('catalogue', 'yes', 'offers of the business');
    const actions = business.potentialAction;
    for (const action of Array.isArray(actions) ? actions : actions ? [actions] : []) {
      if (!action || typeof action !== 'object') continue;
      for (const type of typesOf(action as Node)) {
        const capability = ACTION_CAPABILITIES[type];
        if (capability) add(capability, capability === 'find' ? 'yes' : 'partial', type);
      }
    }
  }
  return { facts, evidence, readable: true };
}
