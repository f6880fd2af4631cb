/**
 * What an AI agent can do with a business, by name (the capabilities the agentic score is about),
 * the groups they are weighed in, and the profiles that say which apply to each kind of business.
 * The published score rules (score-rules.ts) are written from these tables, and the score
 * (score.ts) reads its numbers from them, so what is published is what runs.
 */

/** Every capability, in the fixed vocabulary order that breaks ties (fixes, lists). */
export const CAPABILITY_IDS = [
  'find',
  'catalogue',
  'availability',
  'message',
  'negotiate',
  'book',
  'order',
  'signup',
  'pay',
  'change',
  'cancel',
  'track',
  'return',
  'receipt',
  'feedback',
  'subscription',
  'vouchers',
  'waitlist',
  'support',
  'policies',
] as const;
export type CapabilityId = (typeof CAPABILITY_IDS)[number];

export const CAPABILITY_STATES = ['yes', 'partial', 'no', 'na'] as const;
export type CapabilityState = (typeof CAPABILITY_STATES)[number];

/** The five answers a check result gives first, in this order (directory spec §2 "Check result"). */
export const ANSWER_CAPABILITIES = ['message', 'book', 'order', 'cancel', 'negotiate'] as const satisfies readonly CapabilityId[];

export type Journey = 'before' | 'doing' | 'after' | 'ongoing';

export interface CapabilityDefinition {
  id: CapabilityId;
  journey: Journey;
  label: string;
  /** The question the capability answers, as an agent would ask it. */
  question: string;
}

export const CAPABILITIES: readonly CapabilityDefinition[] = Object.freeze([
  { id: 'find', journey: 'before', label: 'Be found', question: 'Does the site say what the business is, where and when, in data an agent can read?' },
  { id: 'catalogue', journey: 'before', label: 'Catalogue', question: 'Can an agent read what it sells or offers, with prices?' },
  { id: 'availability', journey: 'before', label: 'Availability', question: 'Can an agent see free times or stock before asking?' },
  { id: 'message', journey: 'before', label: 'Message', question: 'Can an agent send the business a question and get an answer?' },
  { id: 'negotiate', journey: 'before', label: 'Negotiate', question: 'Can an agent ask for a quote or an offer?' },
  { id: 'book', journey: 'doing', label: 'Book', question: 'Can an agent book a time?' },
  { id: 'order', journey: 'doing', label: 'Order', question: 'Can an agent place an order?' },
  { id: 'signup', journey: 'doing', label: 'Sign up', question: 'Can an agent sign a person up (a class, a membership, an account)?' },
  { id: 'pay', journey: 'doing', label: 'Pay', question: 'Can an agent pay, or hand over a payment the person approved?' },
  { id: 'change', journey: 'after', label: 'Change', question: 'Can an agent change a booking or an order?' },
  { id: 'cancel', journey: 'after', label: 'Cancel', question: 'Can an agent cancel a booking or an order?' },
  { id: 'track', journey: 'after', label: 'Track', question: 'Can an agent follow an order or a request?' },
  { id: 'return', journey: 'after', label: 'Return', question: 'Can an agent start a return or a refund?' },
  { id: 'receipt', journey: 'after', label: 'Receipt', question: 'Does the business give a receipt an agent can keep or check?' },
  { id: 'feedback', journey: 'after', label: 'Feedback', question: 'Can an agent leave a review or feedback?' },
  { id: 'subscription', journey: 'ongoing', label: 'Subscription', question: 'Can an agent manage a subscription or membership?' },
  { id: 'vouchers', journey: 'ongoing', label: 'Vouchers', question: 'Can an agent buy or redeem a voucher?' },
  { id: 'waitlist', journey: 'ongoing', label: 'Waiting list', question: 'Can an agent join a waiting list?' },
  { id: 'support', journey: 'ongoing', label: 'Support', question: 'Can an agent open a support request?' },
  { id: 'policies', journey: 'before', label: 'Policies', question: 'Can an agent read the terms: returns, cancellation, deposits?' },
]);

export interface CapabilityGroup {
  id: string;
  /** 0 to 100; a group of weight 0 is shown but not scored. */
  weight: number;
  members: readonly CapabilityId[];
}

export const GROUPS: readonly CapabilityGroup[] = Object.freeze([
  { id: 'core', weight: 40, members: ['message', 'book', 'order', 'signup', 'pay'] },
  { id: 'after', weight: 30, members: ['change', 'cancel', 'return', 'subscription', 'receipt'] },
  { id: 'state', weight: 10, members: ['availability', 'track'] },
  { id: 'negotiate', weight: 5, members: ['negotiate'] },
  { id: 'readable', weight: 10, members: ['catalogue', 'policies'] },
  { id: 'find', weight: 5, members: ['find'] },
  { id: 'unscored', weight: 0, members: ['feedback', 'vouchers', 'waitlist', 'support'] },
]);

export interface Profile {
  id: string;
  label: string;
  /** What the profile calls one business ("salon", "shop"). */
  noun: string;
  applicable: readonly CapabilityId[];
  /** Capabilities of which any one will do: each set counts as one slot holding its best state. */
  either: readonly (readonly CapabilityId[])[];
  /** Category groups (GET /v1/categories) that take this profile. */
  groups: readonly string[];
}

export const PROFILES: readonly Profile[] = Object.freeze([
  {
    id: 'appointments',
    label: 'Appointments',
    noun: 'business that takes appointments',
    applicable: ['find', 'catalogue', 'availability', 'message', 'book', 'pay', 'change', 'cancel', 'feedback', 'policies'],
    either: [],
    groups: ['hair-beauty', 'wellness', 'photography', 'tours', 'auto'],
  },
  {
    id: 'classes',
    label: 'Classes and courses',
    noun: 'school',
    applicable: ['find', 'catalogue', 'availability', 'message', 'book', 'signup', 'pay', 'change', 'cancel', 'feedback', 'policies'],
    either: [['book', 'signup']],
    groups: ['education'],
  },
  {
    id: 'food',
    label: 'Food and drink',
    noun: 'restaurant or café',
    applicable: ['find', 'catalogue', 'availability', 'message', 'book', 'order', 'pay', 'change', 'cancel'],
    either: [],
    groups: ['restaurant', 'cafe', 'bakery'],
  },
  {
    id: 'trades',
    label: 'Trades and services',
    noun: 'service business',
    applicable: ['message', 'negotiate', 'book', 'pay', 'change', 'cancel', 'receipt'],
    either: [],
    groups: ['trades', 'cleaning', 'repair', 'accounting', 'consulting', 'it-services', 'events'],
  },
  {
    id: 'shop',
    label: 'Shops',
    noun: 'shop',
    applicable: ['find', 'catalogue', 'availability', 'order', 'pay', 'change', 'cancel', 'track', 'return', 'receipt'],
    either: [],
    groups: ['grocery', 'shop', 'florist', 'pets', 'crafts'],
  },
  {
    id: 'stay',
    label: 'Places to stay',
    noun: 'place to stay',
    applicable: ['availability', 'message', 'book', 'pay', 'change', 'cancel', 'policies'],
    either: [],
    groups: ['stay'],
  },
  {
    id: 'memberships',
    label: 'Memberships',
    noun: 'club',
    applicable: ['find', 'catalogue', 'book', 'order', 'signup', 'pay', 'cancel', 'subscription'],
    either: [['order', 'signup']],
    groups: ['fitness'],
  },
  {
    id: 'venues',
    label: 'Venues',
    noun: 'venue',
    applicable: ['find', 'catalogue', 'availability', 'message', 'book', 'order', 'signup', 'pay', 'change', 'cancel', 'policies'],
    either: [['book', 'order', 'signup']],
    groups: ['venues'],
  },
  {
    id: 'general',
    label: 'General',
    noun: 'business',
    applicable: ['find', 'catalogue', 'message', 'book', 'order', 'signup', 'pay', 'policies'],
    either: [['book', 'order', 'signup']],
    groups: ['bar', 'health', 'dental', 'therapy', 'legal', 'software-ai'],
  },
]);

export const GRADES = Object.freeze([
  { grade: 'A', min: 80 },
  { grade: 'B', min: 60 },
  { grade: 'C', min: 40 },
  { grade: 'D', min: 20 },
  { grade: 'E', min: 0 },
] as const);
export type Grade = (typeof GRADES)[number]['grade'];

/** What a business can do to give an agent a capability it lacks (`<door>` is replaced by its best door, or "an agent door"). */
export interface FixText {
  title: string;
  how: string;
}

export const FIXES: Readonly<Record<CapabilityId, FixText>> = Object.freeze({
  find: { title: 'Say who and where you are in data', how: 'Publish schema.org LocalBusiness data (name, address, opening hours) as JSON-LD on your home page.' },
  catalogue: { title: 'Publish what you offer', how: 'List your services or products with prices: schema.org Offer data on your pages, or a catalogue tool on <door>.' },
  availability: { title: 'Show free times', how: 'Offer an availability read (free times or stock) on <door>.' },
  message: { title: 'Take questions from agents', how: 'Offer a way to send you a message on <door>: an inbox, or a message tool of your MCP server.' },
  negotiate: { title: 'Take quote requests', how: 'Offer a quote request on <door>.' },
  book: { title: 'Take bookings from agents', how: 'Offer a booking tool or operation on <door>.' },
  order: { title: 'Take orders from agents', how: 'Offer an order or checkout tool or operation on <door>.' },
  signup: { title: 'Take sign-ups from agents', how: 'Offer a sign-up or enrolment tool on <door>.' },
  pay: { title: 'Take payment through an agent', how: 'Declare the payments an agent can make: UCP payment handlers, ACP delegated payment, or a payment tool on <door>.' },
  change: { title: 'Let agents change what they made', how: 'Offer a reschedule or change operation on <door>.' },
  cancel: { title: 'Let agents cancel what they made', how: 'Offer a cancel operation on <door>.' },
  track: { title: 'Let agents follow an order', how: 'Offer an order status read on <door>.' },
  return: { title: 'Let agents start a return', how: 'Offer a return or refund request on <door>.' },
  receipt: { title: 'Give receipts agents can check', how: 'Sign receipts and publish the keys that verify them (an inbox does this for you).' },
  feedback: { title: 'Take feedback', how: 'Offer a feedback or review tool on <door>.' },
  subscription: { title: 'Let agents manage memberships', how: 'Offer subscription or membership operations on <door>.' },
  vouchers: { title: 'Sell vouchers to agents', how: 'Offer a voucher tool on <door>.' },
  waitlist: { title: 'Keep a waiting list agents can join', how: 'Offer a waiting list tool on <door>.' },
  support: { title: 'Take support requests', how: 'Offer a support request on <door>.' },
  policies: { title: 'Publish your terms in data', how: 'Publish your return and cancellation terms as schema.org MerchantReturnPolicy data, or a policies read on <door>.' },
});

const GROUP_OF = new Map<CapabilityId, CapabilityGroup>();
for (const group of GROUPS) for (const member of group.members) GROUP_OF.set(member, group);

export function groupOf(capability: CapabilityId): CapabilityGroup {
  return GROUP_OF.get(capability) as CapabilityGroup;
}

export function vocabularyIndex(capability: CapabilityId): number {
  return CAPABILITY_IDS.indexOf(capability);
}

export function isCapabilityId(value: string): value is CapabilityId {
  return (CAPABILITY_IDS as readonly string[]).includes(value);
}

export function profileById(id: string): Profile | undefined {
  return PROFILES.find((p) => p.id === id);
}

/** The profile of a category group; `general` for a group no profile names, and for none. */
export function profileOfGroup(group: string | null): Profile {
  const found = group === null ? undefined : PROFILES.find((p) => p.groups.includes(group));
  return found ?? (PROFILES.find((p) => p.id === 'general') as Profile);
}

export function gradeOf(score: number): Grade {
  for (const { grade, min } of GRADES) if (score >= min) return grade;
  return 'E';
}
