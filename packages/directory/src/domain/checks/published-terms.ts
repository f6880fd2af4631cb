/**
 * The payments and attributes a business publishes about itself in schema.org data, in our
 * vocabulary (GET /v1/attributes): `paymentAccepted` ("Cash, Credit Card, Apple Pay") becomes payment
 * tokens; `amenityFeature` (LocationFeatureSpecification {name, value}) and a few schema.org
 * booleans become attribute keys, only those the notes mark as readable off a site (`seen`: delivery,
 * takeaway, walk-ins, same day, step-free entrance, pets, Wi-Fi, parking). Only our tokens come out:
 * a word we do not know is dropped, never shown. Accessibility only from an explicit statement.
 */
import { ATTRIBUTE_KEYS, isPaymentToken, PAYMENT_LABELS } from '../vocab/attributes.js';
import { fold } from '../vocab/fold.js';

/** Spellings of payments (folded) besides each token's own name and its token with spaces. */
const PAYMENT_SPELLINGS: Readonly<Record<string, string>> = {
  'cash': 'cash', 'numerario': 'cash', 'dinheiro': 'cash', 'efectivo': 'cash', 'especes': 'cash', 'bargeld': 'cash', 'bar': 'cash',
  'credit card': 'credit_card', 'credit cards': 'credit_card', 'cartao de credito': 'credit_card', 'tarjeta de credito': 'credit_card', 'carte de credit': 'credit_card', 'kreditkarte': 'credit_card',
  'debit card': 'debit_card', 'debit cards': 'debit_card', 'cartao de debito': 'debit_card', 'tarjeta de debito': 'debit_card', 'ec karte': 'debit_card', 'girocard': 'debit_card',
  'card': 'card', 'cards': 'card', 'visa': 'card', 'mastercard': 'card', 'maestro': 'card', 'american express': 'card', 'amex': 'card', 'cartao': 'card', 'tarjeta': 'card', 'carte bancaire': 'cb', 'carte bleue': 'cb',
  'contactless': 'contactless', 'nfc': 'contactless', 'sem contacto': 'contactless',
  'bank transfer': 'bank_transfer', 'wire transfer': 'bank_transfer', 'transferencia bancaria': 'bank_transfer', 'virement': 'bank_transfer', 'uberweisung': 'bank_transfer',
  'direct debit': 'sepa_direct_debit', 'sepa': 'sepa_direct_debit',
  'invoice': 'invoice', 'fatura': 'invoice', 'factura': 'invoice', 'rechnung': 'invoice',
  'cheque': 'cheque', 'check': 'cheque',
  'mbway': 'mb_way', 'mb way': 'mb_way',
  'ticket restaurant': 'meal_voucher', 'meal vouchers': 'meal_voucher', 'vale refeicao': 'meal_voucher', 'cheque dejeuner': 'meal_voucher', 'cheque repas': 'meal_voucher', 'titre restaurant': 'meal_voucher',
  'apple pay': 'apple_pay', 'google pay': 'google_pay', 'gpay': 'google_pay', 'samsung pay': 'samsung_pay', 'paypal': 'paypal',
};

const PAYMENT_NAMES = new Map<string, string>();
for (const group of Object.values(PAYMENT_LABELS)) {
  for (const [token, label] of Object.entries(group)) {
    PAYMENT_NAMES.set(fold(label), token);
    PAYMENT_NAMES.set(fold(token.replace(/_/g, ' ')), token);
  }
}
for (const [spelling, token] of Object.entries(PAYMENT_SPELLINGS)) if (isPaymentToken(token)) PAYMENT_NAMES.set(spelling, token);

/** Payment tokens of a `paymentAccepted` value (text with commas, or a list), at most 20. */
export function paymentsOf(value: unknown): string[] {
  const texts = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string').slice(0, 20);
  const tokens: string[] = [];
  for (const text of texts) {
    for (const part of text.slice(0, 500).split(/[,;/|•·\n]+|\s+(?:and|or|e|ou|y|o|et|und|oder)\s+/i)) {
      const token = PAYMENT_NAMES.get(fold(part).replace(/[^a-z0-9 ]+/g, ' ').replace(/\s+/g, ' ').trim());
      if (token && !tokens.includes(token)) tokens.push(token);
    }
  }
  return tokens.slice(0, 20);
}

/** Words (folded) that name a seen attribute, besides its labels in our five languages. */
const ATTRIBUTE_WORDS: Readonly<Record<string, readonly string[]>> = {
  wifi: ['wifi', 'wi fi', 'free wifi', 'free wi fi', 'wifi gratis', 'wi fi gratis', 'wifi gratuito', 'wi fi gratuit', 'wireless internet', 'internet', 'wlan'],
  parking: ['parking', 'free parking', 'car park', 'parking lot', 'estacionamento', 'aparcamiento', 'parque de estacionamento', 'parkplatz'],
  step_free_entrance: ['wheelchair accessible', 'wheelchair accessible entrance', 'step free access', 'step free entrance', 'accessible entrance', 'acesso para cadeira de rodas', 'acceso en silla de ruedas', 'barrierefrei'],
  pets_welcome: ['pets allowed', 'pets welcome', 'pet friendly', 'dog friendly', 'dogs allowed', 'animais permitidos', 'se admiten mascotas'],
  delivery: ['delivery', 'home delivery', 'entrega ao domicilio', 'entregas', 'entrega a domicilio', 'livraison', 'lieferung', 'lieferservice'],
  takeaway: ['takeaway', 'take away', 'takeout', 'take out', 'para levar', 'para llevar', 'a emporter', 'zum mitnehmen'],
  walk_ins: ['walk ins', 'walk ins welcome', 'walk in', 'no appointment needed', 'sem marcacao', 'sin cita previa', 'sans rendez vous'],
  same_day: ['same day', 'same day service', 'same day delivery'],
};

const SEEN_KEYS = ATTRIBUTE_KEYS.filter((k) => k.evidence === 'seen' && k.type === 'bool');
const ATTRIBUTE_NAMES = new Map<string, string>();
for (const def of SEEN_KEYS) {
  for (const label of Object.values(def.labels)) ATTRIBUTE_NAMES.set(fold(label).replace(/[^a-z0-9 ]+/g, ' ').replace(/\s+/g, ' ').trim(), def.key);
  for (const word of ATTRIBUTE_WORDS[def.key] ?? []) ATTRIBUTE_NAMES.set(word, def.key);
}

const truth = (value: unknown): boolean | null => (value === true || value === 'true' || value === 'True' ? true : value === false || value === 'false' || value === 'False' ? false : null);

/** Seen attributes of a business node: its amenityFeature list and schema.org booleans (petsAllowed). */
export function attributesOf(business: Record<string, unknown>): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  const features = business.amenityFeature;
  for (const feature of (Array.isArray(features) ? features : features ? [features] : []).slice(0, 50)) {
    if (!feature || typeof feature !== 'object') continue;
    const { name, value } = feature as { name?: unknown; value?: unknown };
    if (typeof name !== 'string') continue;
    // A feature without a value is stated as present (schema.org's LocationFeatureSpecification default).
    const v = value === undefined ? true : truth(value);
    const key = ATTRIBUTE_NAMES.get(fold(name.slice(0, 80)).replace(/[^a-z0-9 ]+/g, ' ').replace(/\s+/g, ' ').trim());
    if (key && v !== null && !(key in out)) out[key] = v;
  }
  const pets = truth(business.petsAllowed);
  if (pets !== null && !('pets_welcome' in out)) out.pets_welcome = pets;
  return out;
}
