/**
 * Attribute keys and payment tokens (directory spec §2 "Categories and attributes", §4
 * GET /v1/attributes, and the `attributes` and `accepts` search parameters).
 *
 * An attribute is a fact a business states about itself (or that the service saw on its own site):
 * `delivery`, `wifi`, `vegan_options`… All are yes/no except `cert`, whose value is one of a list.
 * A key that needs a register's proof (halal, kosher, a certification) is listed with
 * `filterable: false`: it is neither filtered on nor shown until such a proof can be checked.
 */

import { GROUP_SLUGS } from './groups.js';

/** Version of the attributes list (GET /v1/attributes `version`); raise it on any change (2: eleven local payments added, with every payment's name). */
export const ATTRIBUTES_VERSION = 2;

export const ATTRIBUTE_GROUPS = [
  'service',
  'booking',
  'hours',
  'accessibility',
  'diet',
  'audience',
  'identity',
  'certification',
  'facilities',
  'extra',
] as const;
export type AttributeGroup = (typeof ATTRIBUTE_GROUPS)[number];

export type AttributeLanguage = 'en' | 'pt' | 'es' | 'fr' | 'de';

/**
 * Where a value can come from: `seen` keys may also be read off the business's own site;
 * `declared` only from the business; `hours` are worked out from its published hours and never
 * declared; `proof` keys need a register's proof.
 */
export type AttributeEvidence = 'seen' | 'declared' | 'hours' | 'proof';

export interface AttributeKeyDef {
  key: string;
  group: AttributeGroup;
  type: 'bool' | 'enum';
  labels: Readonly<Record<AttributeLanguage, string>>;
  filterable: boolean;
  values?: readonly string[];
  evidence: AttributeEvidence;
  /** Group slugs the key makes sense for, or '*' for every group. */
  appliesTo: '*' | readonly string[];
}

/** A key as GET /v1/attributes lists it. */
export interface AttributeKeyEntry {
  key: string;
  group: AttributeGroup;
  type: 'bool' | 'enum';
  labels: Record<string, string>;
  filterable: boolean;
  values?: string[];
}

export interface PaymentTokens {
  methods: readonly string[];
  wallets: readonly string[];
  agent: readonly string[];
}

export interface AttributesDocument {
  version: number;
  keys: AttributeKeyEntry[];
  payments: { methods: string[]; wallets: string[]; agent: string[] };
  /** Every payment token's name (brand names are the same in every language). */
  payment_labels: Record<string, string>;
}

const FOOD = ['restaurant', 'cafe', 'bakery', 'bar', 'grocery'];
const SEATED = ['restaurant', 'cafe', 'bar', 'venues', 'events'];
const CALL_OUT = ['trades', 'cleaning', 'repair', 'auto', 'it-services', 'pets', 'events', 'photography'];
const APPOINTMENTS = ['hair-beauty', 'wellness', 'fitness', 'health', 'dental', 'therapy', 'legal', 'accounting', 'consulting', 'auto', 'repair', 'pets', 'photography', 'education'];
const PREMISES = GROUP_SLUGS.filter((s) => s !== 'software-ai');

type L = Record<AttributeLanguage, string>;
const l = (en: string, pt: string, es: string, fr: string, de: string): L => ({ en, pt, es, fr, de });

interface KeyInput {
  key: string;
  labels: L;
  evidence?: AttributeEvidence;
  appliesTo?: '*' | readonly string[];
  values?: readonly string[];
}

const INPUT: Readonly<Record<AttributeGroup, readonly KeyInput[]>> = {
  service: [
    { key: 'on_site', labels: l('Service on the premises', 'Atendimento no local', 'Servicio en el local', 'Service sur place', 'Service vor Ort'), appliesTo: PREMISES },
    { key: 'delivery', labels: l('Delivery', 'Entregas ao domicílio', 'Entrega a domicilio', 'Livraison', 'Lieferung'), evidence: 'seen' },
    { key: 'takeaway', labels: l('Takeaway', 'Take-away', 'Para llevar', 'À emporter', 'Zum Mitnehmen'), evidence: 'seen', appliesTo: FOOD },
    { key: 'pickup', labels: l('Order ahead and pick up', 'Encomendar e levantar', 'Pedir y recoger', 'Commande et retrait', 'Bestellen und abholen') },
    { key: 'curbside_pickup', labels: l('Kerbside pickup', 'Recolha à porta', 'Recogida en la acera', 'Retrait devant le magasin', 'Abholung am Straßenrand') },
    { key: 'remote', labels: l('Served remotely', 'Atendimento à distância', 'Atención a distancia', 'À distance', 'Aus der Ferne') },
    { key: 'home_visits', labels: l('Comes to you', 'Vai a casa do cliente', 'Servicio a domicilio', 'Se déplace à domicile', 'Kommt zu Ihnen'), evidence: 'seen', appliesTo: [...CALL_OUT, ...APPOINTMENTS] },
    { key: 'drive_through', labels: l('Drive-through', 'Drive-through', 'Autoservicio en coche', 'Drive', 'Drive-in'), appliesTo: [...FOOD, 'health'] },
  ],
  booking: [
    { key: 'booking_required', labels: l('Booking required', 'Reserva obrigatória', 'Reserva obligatoria', 'Réservation obligatoire', 'Reservierung erforderlich') },
    { key: 'walk_ins', labels: l('Walk-ins welcome', 'Sem marcação', 'Sin cita previa', 'Sans rendez-vous', 'Ohne Termin'), evidence: 'seen' },
    { key: 'same_day', labels: l('Same-day service', 'Serviço no próprio dia', 'Servicio en el mismo día', 'Service le jour même', 'Service am selben Tag'), evidence: 'seen' },
    { key: 'appointments_only', labels: l('By appointment only', 'Só com marcação', 'Solo con cita previa', 'Sur rendez-vous uniquement', 'Nur mit Termin') },
  ],
  hours: [
    { key: 'open_24h', labels: l('Open 24 hours', 'Aberto 24 horas', 'Abierto 24 horas', 'Ouvert 24 h/24', 'Rund um die Uhr geöffnet'), evidence: 'hours', appliesTo: PREMISES },
    { key: 'open_late', labels: l('Open late', 'Aberto até tarde', 'Abierto hasta tarde', 'Ouvert tard', 'Lange geöffnet'), evidence: 'hours', appliesTo: PREMISES },
  ],
  accessibility: [
    { key: 'step_free_entrance', labels: l('Step-free entrance', 'Entrada sem degraus', 'Entrada sin escalones', 'Entrée de plain-pied', 'Stufenloser Eingang'), evidence: 'seen', appliesTo: PREMISES },
    { key: 'accessible_toilet', labels: l('Accessible toilet', 'Casa de banho acessível', 'Baño accesible', 'Toilettes accessibles', 'Barrierefreie Toilette'), appliesTo: PREMISES },
    { key: 'accessible_parking', labels: l('Accessible parking', 'Estacionamento acessível', 'Aparcamiento accesible', 'Stationnement accessible', 'Behindertenparkplatz'), appliesTo: PREMISES },
    { key: 'hearing_loop', labels: l('Hearing loop', 'Anel de indução magnética', 'Bucle magnético', 'Boucle magnétique', 'Induktionsschleife'), appliesTo: PREMISES },
    { key: 'assistance_dogs', labels: l('Assistance dogs welcome', 'Cães de assistência bem-vindos', 'Perros de asistencia bienvenidos', "Chiens d'assistance acceptés", 'Assistenzhunde willkommen'), appliesTo: PREMISES },
  ],
  diet: [
    { key: 'vegan_options', labels: l('Vegan options', 'Opções veganas', 'Opciones veganas', 'Options véganes', 'Vegane Auswahl'), appliesTo: FOOD },
    { key: 'vegetarian_options', labels: l('Vegetarian options', 'Opções vegetarianas', 'Opciones vegetarianas', 'Options végétariennes', 'Vegetarische Auswahl'), appliesTo: FOOD },
    { key: 'gluten_free_options', labels: l('Gluten-free options', 'Opções sem glúten', 'Opciones sin gluten', 'Options sans gluten', 'Glutenfreie Auswahl'), appliesTo: FOOD },
    { key: 'organic_options', labels: l('Organic options', 'Opções biológicas', 'Opciones ecológicas', 'Options bio', 'Bio-Auswahl'), appliesTo: FOOD },
    { key: 'halal', labels: l('Halal', 'Halal', 'Halal', 'Halal', 'Halal'), evidence: 'proof', appliesTo: FOOD },
    { key: 'kosher', labels: l('Kosher', 'Kosher', 'Kosher', 'Casher', 'Koscher'), evidence: 'proof', appliesTo: FOOD },
  ],
  audience: [
    { key: 'family_friendly', labels: l('Family-friendly', 'Bom para famílias', 'Apto para familias', 'Adapté aux familles', 'Familienfreundlich') },
    { key: 'pets_welcome', labels: l('Pets welcome', 'Aceita animais', 'Se admiten mascotas', 'Animaux acceptés', 'Haustiere willkommen'), evidence: 'seen', appliesTo: PREMISES },
    { key: 'kids_area', labels: l("Children's area", 'Espaço para crianças', 'Zona infantil', 'Espace enfants', 'Kinderecke'), appliesTo: PREMISES },
  ],
  identity: [
    { key: 'women_owned', labels: l('Women-owned', 'Gerido por mulheres', 'Propiedad de mujeres', 'Dirigé par des femmes', 'In Frauenhand') },
    { key: 'lgbtq_friendly', labels: l('LGBTQ+ friendly', 'Amigável LGBTQ+', 'LGBTQ+ friendly', 'LGBTQ+ bienvenue', 'LGBTQ+-freundlich') },
    { key: 'veteran_owned', labels: l('Veteran-owned', 'Gerido por veteranos', 'Propiedad de veteranos', "Dirigé par d'anciens combattants", 'Von Veteranen geführt') },
    { key: 'minority_owned', labels: l('Minority-owned', 'Gerido por minorias', 'Propiedad de minorías', 'Dirigé par des minorités', 'Von Minderheiten geführt') },
  ],
  certification: [
    {
      key: 'cert',
      labels: l('Certification', 'Certificação', 'Certificación', 'Certification', 'Zertifizierung'),
      evidence: 'proof',
      values: ['eu_organic', 'b_corp', 'iso_9001', 'iso_14001', 'fairtrade'],
    },
  ],
  facilities: [
    { key: 'wifi', labels: l('Wi-Fi', 'Wi-Fi', 'Wi-Fi', 'Wi-Fi', 'WLAN'), evidence: 'seen', appliesTo: PREMISES },
    { key: 'parking', labels: l('Parking', 'Estacionamento', 'Aparcamiento', 'Parking', 'Parkplätze'), evidence: 'seen', appliesTo: PREMISES },
    { key: 'outdoor_seating', labels: l('Outdoor seating', 'Esplanada', 'Terraza', 'Terrasse', 'Außenbereich'), appliesTo: SEATED },
    { key: 'card_only', labels: l('Cards only, no cash', 'Só cartão', 'Solo tarjeta', 'Carte uniquement', 'Nur Kartenzahlung'), appliesTo: PREMISES },
    { key: 'cash_only', labels: l('Cash only', 'Só dinheiro', 'Solo efectivo', 'Espèces uniquement', 'Nur Barzahlung'), appliesTo: PREMISES },
    { key: 'ev_charging', labels: l('EV charging', 'Carregamento de veículos elétricos', 'Carga de vehículos eléctricos', 'Recharge de véhicules électriques', 'E-Auto-Ladestation'), appliesTo: PREMISES },
    { key: 'air_conditioning', labels: l('Air conditioning', 'Ar condicionado', 'Aire acondicionado', 'Climatisation', 'Klimaanlage'), appliesTo: PREMISES },
    { key: 'restroom', labels: l('Toilets for customers', 'Casa de banho para clientes', 'Baño para clientes', 'Toilettes pour les clients', 'Kundentoilette'), appliesTo: PREMISES },
  ],
  extra: [
    { key: 'free_estimates', labels: l('Free estimates', 'Orçamentos gratuitos', 'Presupuesto gratuito', 'Devis gratuit', 'Kostenloser Kostenvoranschlag'), appliesTo: CALL_OUT },
    { key: 'emergency_service', labels: l('Emergency call-outs', 'Serviço de urgência', 'Servicio de urgencias', "Service d'urgence", 'Notdienst'), appliesTo: CALL_OUT },
  ],
};

/** Every attribute key, by group in list order. */
export const ATTRIBUTE_KEYS: readonly AttributeKeyDef[] = Object.freeze(
  ATTRIBUTE_GROUPS.flatMap((group) =>
    INPUT[group].map((k): AttributeKeyDef => {
      const evidence = k.evidence ?? 'declared';
      const def: AttributeKeyDef = {
        key: k.key,
        group,
        type: k.values ? 'enum' : 'bool',
        labels: Object.freeze({ ...k.labels }),
        filterable: evidence !== 'proof',
        evidence,
        appliesTo: k.appliesTo === undefined || k.appliesTo === '*' ? '*' : Object.freeze([...new Set(k.appliesTo)]),
      };
      if (k.values) def.values = Object.freeze([...k.values]);
      return Object.freeze(def);
    }),
  ),
);

const BY_KEY = new Map(ATTRIBUTE_KEYS.map((k) => [k.key, k]));

/** The definition of an attribute key, or undefined for an unknown one. */
export function attributeKey(key: string): AttributeKeyDef | undefined {
  return BY_KEY.get(key);
}

/**
 * Whether `value` is a value the key takes: for a bool key true or false (also written 'true' or
 * 'false', as in a query string), for an enum key one of its `values`.
 */
export function attributeValueAllowed(key: string, value: unknown): boolean {
  const def = BY_KEY.get(key);
  if (!def) return false;
  if (def.type === 'bool') return typeof value === 'boolean' || value === 'true' || value === 'false';
  return typeof value === 'string' && (def.values ?? []).includes(value);
}

/**
 * Payment tokens a business can accept (`accepts` search parameter, listing `accepts.pay`):
 * ordinary methods, wallets, and rails an AI agent can pay through on a customer's behalf. One
 * spelling for each: every token a listing carries is one of these (the demo generator draws from
 * them), so `accepts=<token>` works for every token shown. Each has its name in PAYMENT_LABELS.
 */
export const PAYMENT_LABELS: Readonly<Record<keyof PaymentTokens, Readonly<Record<string, string>>>> = Object.freeze({
  methods: Object.freeze({
    cash: 'Cash',
    card: 'Payment card',
    debit_card: 'Debit card',
    credit_card: 'Credit card',
    contactless: 'Contactless',
    bank_transfer: 'Bank transfer',
    sepa_direct_debit: 'SEPA Direct Debit',
    invoice: 'Invoice',
    cheque: 'Cheque',
    pix: 'Pix',
    mb_way: 'MB WAY',
    multibanco: 'Multibanco',
    boleto: 'Boleto',
    bizum: 'Bizum',
    ideal: 'iDEAL',
    bancontact: 'Bancontact',
    twint: 'TWINT',
    blik: 'BLIK',
    swish: 'Swish',
    upi: 'UPI',
    meal_voucher: 'Meal voucher',
    cb: 'Cartes Bancaires (CB)',
    eps: 'eps-Überweisung',
    oxxo: 'OXXO Pay',
    promptpay: 'PromptPay',
    paynow: 'PayNow',
  }),
  wallets: Object.freeze({
    apple_pay: 'Apple Pay',
    google_pay: 'Google Pay',
    samsung_pay: 'Samsung Pay',
    paypal: 'PayPal',
    revolut: 'Revolut',
    wise: 'Wise',
    alipay: 'Alipay',
    wechat_pay: 'WeChat Pay',
    mercado_pago: 'Mercado Pago',
    venmo: 'Venmo',
    cash_app: 'Cash App',
    satispay: 'Satispay',
    vipps_mobilepay: 'Vipps MobilePay',
    paypay: 'PayPay',
    kakaopay: 'KakaoPay',
    gopay: 'GoPay',
    gcash: 'GCash',
    grabpay: 'GrabPay',
    mpesa: 'M-Pesa',
  }),
  agent: Object.freeze({
    x402: 'x402',
    l402: 'L402',
    ap2: 'Agent Payments Protocol (AP2)',
    acp: 'Agentic Commerce Protocol (ACP)',
    ucp: 'Universal Commerce Protocol (UCP)',
    visa_intelligent_commerce: 'Visa Intelligent Commerce',
    mastercard_agent_pay: 'Mastercard Agent Pay',
  }),
});

export const PAYMENTS: PaymentTokens = Object.freeze({
  methods: Object.freeze(Object.keys(PAYMENT_LABELS.methods)),
  wallets: Object.freeze(Object.keys(PAYMENT_LABELS.wallets)),
  agent: Object.freeze(Object.keys(PAYMENT_LABELS.agent)),
});

const PAYMENT_GROUP = new Map<string, keyof PaymentTokens>();
for (const group of ['methods', 'wallets', 'agent'] as const) for (const t of PAYMENTS[group]) PAYMENT_GROUP.set(t, group);

export function isPaymentToken(token: string): boolean {
  return PAYMENT_GROUP.has(token);
}

/** Which list a payment token is in, or undefined. */
export function paymentTokenGroup(token: string): keyof PaymentTokens | undefined {
  return PAYMENT_GROUP.get(token);
}

/** Body of GET /v1/attributes. */
export function attributesDocument(): AttributesDocument {
  return {
    version: ATTRIBUTES_VERSION,
    keys: ATTRIBUTE_KEYS.map((k) => {
      const entry: AttributeKeyEntry = { key: k.key, group: k.group, type: k.type, labels: { ...k.labels }, filterable: k.filterable };
      if (k.values) entry.values = [...k.values];
      return entry;
    }),
    payments: { methods: [...PAYMENTS.methods], wallets: [...PAYMENTS.wallets], agent: [...PAYMENTS.agent] },
    payment_labels: { ...PAYMENT_LABELS.methods, ...PAYMENT_LABELS.wallets, ...PAYMENT_LABELS.agent },
  };
}
