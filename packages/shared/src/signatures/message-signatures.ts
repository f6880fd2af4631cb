/**
 * RFC 9421 HTTP Message Signatures, the parts our profiles use: request components
 * (`@method`, `@target-uri`, `@authority`, `@scheme`, `@request-target`, `@path`, `@query` and
 * header fields by name), the signature base, the `Signature-Input` / `Signature` structured
 * dictionaries (RFC 8941, through `structured-headers`) and Ed25519 (`alg="ed25519"`).
 *
 * Not supported, and refused as malformed when a signature covers them: component parameters
 * (`;sf`, `;key`, `;bs`, `;req`, `;tr`, `;name`), `@query-param`, `@status` and response signatures.
 */
import { sign as cryptoSign, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { parseDictionary, serializeDictionary, serializeInnerList, type BareItem, type Parameters } from 'structured-headers';
import { ed25519PrivateKey, ed25519PublicKey, type Ed25519PrivateJwk, type Ed25519PublicJwk } from './ed25519-keys.js';

/** Header fields as Fetch `Headers` or a Node/Fastify header record (any name case; arrays are field lines). */
export type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | number | undefined>>;

export interface HttpRequestLike {
  method: string;
  /** The target URI as the receiver knows itself (its own origin), never rebuilt from `Host`. */
  url: string | URL;
  headers: HeaderSource;
}

export const DERIVED_COMPONENTS = ['@method', '@target-uri', '@authority', '@scheme', '@request-target', '@path', '@query'] as const;
export type DerivedComponent = (typeof DERIVED_COMPONENTS)[number];

/** Bounds on what we read, so a hostile request costs little (each refused as malformed). */
export const SIGNATURE_LIMITS = {
  /** Longest Signature-Input or Signature field, in characters. */
  maxFieldLength: 8192,
  /** Most signatures (labels) in one message. */
  maxSignatures: 8,
  /** Most covered components in one signature. */
  maxComponents: 24,
  /** Longest covered component value. */
  maxValueLength: 8192,
} as const;

/** Signature parameters (RFC 9421 §2.3); serialized in the order the object holds them. */
export interface SignatureParams {
  created?: number;
  expires?: number;
  nonce?: string;
  alg?: string;
  keyid?: string;
  tag?: string;
}

export type SignatureErrorCode = 'missing' | 'malformed' | 'component_missing';

/** Thrown while building a signature base or parsing signature fields. */
export class MessageSignatureError extends Error {
  constructor(readonly code: SignatureErrorCode, message: string) {
    super(message);
    this.name = 'MessageSignatureError';
  }
}

/** The combined value of a header field (RFC 9421 §2.1): each line trimmed, lines joined by ", "; undefined when absent. */
export function headerField(headers: HeaderSource, name: string): string | undefined {
  const wanted = name.toLowerCase();
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function') {
    const value = (headers as Headers).get(wanted);
    return value === null ? undefined : trimOws(value);
  }
  const lines: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    // Names of another length are skipped before lowercasing (a name equal to an ASCII one lowercased has its length).
    if (key.length !== wanted.length || key.toLowerCase() !== wanted || value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const line of value) lines.push(trimOws(String(line)));
    else lines.push(trimOws(String(value)));
  }
  return lines.length === 0 ? undefined : lines.join(', ');
}

function trimOws(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
}

function toUrl(url: string | URL): URL {
  try {
    return url instanceof URL ? url : new URL(url);
  } catch {
    throw new MessageSignatureError('malformed', 'The target URI is not an absolute URL.');
  }
}

/** The value of one derived component for a request, per RFC 9421 §2.2. */
export function derivedComponentValue(request: Pick<HttpRequestLike, 'method' | 'url'>, component: DerivedComponent): string {
  const url = toUrl(request.url);
  switch (component) {
    case '@method':
      return request.method;
    case '@target-uri':
      return `${url.protocol}//${url.host}${url.pathname}${url.search}`;
    case '@authority':
      return url.host.toLowerCase();
    case '@scheme':
      return url.protocol.slice(0, -1).toLowerCase();
    case '@request-target':
      return `${url.pathname}${url.search}`;
    case '@path':
      return url.pathname === '' ? '/' : url.pathname;
    case '@query':
      return url.search === '' ? '?' : url.search;
  }
}

const COMPONENT_NAME = /^@?[a-z0-9!#$%&'*+.^_`|~-]+$/;

function isDerived(name: string): name is DerivedComponent {
  return (DERIVED_COMPONENTS as readonly string[]).includes(name);
}

/** One component's value, or a MessageSignatureError (component_missing when a covered header is absent). */
export function componentValue(request: HttpRequestLike, component: string): string {
  if (!COMPONENT_NAME.test(component)) throw new MessageSignatureError('malformed', `"${component}" is not a component name we support.`);
  let value: string | undefined;
  if (component.startsWith('@')) {
    if (!isDerived(component)) throw new MessageSignatureError('malformed', `The derived component ${component} is not supported.`);
    value = derivedComponentValue(request, component);
  } else {
    value = headerField(request.headers, component);
    if (value === undefined) throw new MessageSignatureError('component_missing', `The covered header ${component} is not in the request.`);
  }
  if (value.length > SIGNATURE_LIMITS.maxValueLength) throw new MessageSignatureError('malformed', `The value of ${component} is too long to sign.`);
  // The signature base is ASCII text, one component per line.
  if (!/^[\x20-\x7e\t]*$/.test(value)) throw new MessageSignatureError('malformed', `The value of ${component} holds characters a signature base cannot.`);
  return value;
}

function paramsMap(params: SignatureParams | Parameters): Parameters {
  if (params instanceof Map) return params;
  const map: Parameters = new Map();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) map.set(name, value as BareItem);
  return map;
}

/** The `@signature-params` value: `("@method" …);created=…;keyid="…"`, also the Signature-Input member. */
export function serializeSignatureParams(components: readonly string[], params: SignatureParams | Parameters): string {
  const seen = new Set<string>();
  for (const component of components) {
    if (seen.has(component)) throw new MessageSignatureError('malformed', `${component} is covered twice.`);
    if (component === '@signature-params') throw new MessageSignatureError('malformed', '@signature-params cannot be covered.');
    seen.add(component);
  }
  return serializeInnerList([components.map((c) => [c, new Map()]), paramsMap(params)]);
}

/** The signature base (RFC 9421 §2.5) for a request, covered components and their serialized parameters. */
export function createSignatureBase(request: HttpRequestLike, components: readonly string[], signatureParams: string): string {
  const lines = components.map((component) => `"${component}": ${componentValue(request, component)}`);
  lines.push(`"@signature-params": ${signatureParams}`);
  return lines.join('\n');
}

function privateKeyOf(key: KeyObject | Ed25519PrivateJwk): KeyObject {
  return 'asymmetricKeyType' in key && typeof (key as KeyObject).export === 'function' ? (key as KeyObject) : ed25519PrivateKey(key as Ed25519PrivateJwk);
}

function publicKeyOf(key: KeyObject | Ed25519PublicJwk): KeyObject {
  return 'asymmetricKeyType' in key && typeof (key as KeyObject).export === 'function' ? (key as KeyObject) : ed25519PublicKey(key as Ed25519PublicJwk);
}

export function signEd25519(base: string, key: KeyObject | Ed25519PrivateJwk): Buffer {
  const privateKey = privateKeyOf(key);
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('The signing key is not an Ed25519 key.');
  return cryptoSign(null, Buffer.from(base, 'ascii'), privateKey);
}

export function verifyEd25519(base: string, signature: Uint8Array, key: KeyObject | Ed25519PublicJwk): boolean {
  const publicKey = publicKeyOf(key);
  if (publicKey.asymmetricKeyType !== 'ed25519' || signature.length !== 64) return false;
  try {
    return cryptoVerify(null, Buffer.from(base, 'ascii'), publicKey, signature);
  } catch {
    return false;
  }
}

/**
 * The same check on libuv's thread pool (node:crypto's verify with a callback): a server verifying
 * many signatures keeps its event loop for other requests, and the check uses another core.
 */
export function verifyEd25519Async(base: string, signature: Uint8Array, key: KeyObject | Ed25519PublicJwk): Promise<boolean> {
  const publicKey = publicKeyOf(key);
  if (publicKey.asymmetricKeyType !== 'ed25519' || signature.length !== 64) return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      cryptoVerify(null, Buffer.from(base, 'ascii'), publicKey, signature, (error, ok) => resolve(!error && ok));
    } catch {
      resolve(false);
    }
  });
}

export interface SignMessageOptions {
  /** The dictionary key in Signature-Input and Signature. */
  label: string;
  components: readonly string[];
  params: SignatureParams;
  key: KeyObject | Ed25519PrivateJwk;
}

export interface SignedFields {
  'Signature-Input': string;
  Signature: string;
  /** The signature base that was signed, for logs and tests. */
  base: string;
}

/** Signs a request with Ed25519: the Signature-Input and Signature field values for one label. */
export function signMessage(request: HttpRequestLike, options: SignMessageOptions): SignedFields {
  const signatureParams = serializeSignatureParams(options.components, options.params);
  const base = createSignatureBase(request, options.components, signatureParams);
  const signature = signEd25519(base, options.key);
  return {
    'Signature-Input': `${options.label}=${signatureParams}`,
    Signature: serializeDictionary(new Map([[options.label, [signature, new Map()]]])),
    base,
  };
}

/** One signature read from a message. */
export interface ParsedSignature {
  label: string;
  components: string[];
  /** Every parameter as received (typed), including ones we do not know. */
  params: Parameters;
  /** The known parameters, type-checked. */
  created?: number;
  expires?: number;
  nonce?: string;
  alg?: string;
  keyid?: string;
  tag?: string;
  /** `@signature-params` as re-serialized from what was received. */
  signatureParams: string;
  signature: Uint8Array;
}

const INTEGER_PARAMS = new Set(['created', 'expires']);
const STRING_PARAMS = new Set(['nonce', 'alg', 'keyid', 'tag']);

function readField(headers: HeaderSource, name: string): string | undefined {
  const value = headerField(headers, name);
  if (value !== undefined && value.length > SIGNATURE_LIMITS.maxFieldLength) {
    throw new MessageSignatureError('malformed', `${name} is longer than ${SIGNATURE_LIMITS.maxFieldLength} characters.`);
  }
  return value;
}

function parseField(value: string, name: string): ReturnType<typeof parseDictionary> {
  try {
    return parseDictionary(value);
  } catch {
    throw new MessageSignatureError('malformed', `${name} is not a structured dictionary (RFC 8941).`);
  }
}

/**
 * Reads every signature of a request (Signature-Input with its Signature, by label).
 * Throws MessageSignatureError: `missing` when neither field is there, `malformed` for anything
 * that does not parse, pair up or type-check.
 */
export function parseSignatures(headers: HeaderSource): ParsedSignature[] {
  const inputField = readField(headers, 'signature-input');
  const signatureField = readField(headers, 'signature');
  if (inputField === undefined && signatureField === undefined) throw new MessageSignatureError('missing', 'The request carries no Signature-Input and no Signature.');
  if (inputField === undefined) throw new MessageSignatureError('missing', 'The request carries a Signature but no Signature-Input.');
  if (signatureField === undefined) throw new MessageSignatureError('missing', 'The request carries a Signature-Input but no Signature.');
  const inputs = parseField(inputField, 'Signature-Input');
  const signatures = parseField(signatureField, 'Signature');
  if (inputs.size === 0) throw new MessageSignatureError('missing', 'Signature-Input names no signature.');
  if (inputs.size > SIGNATURE_LIMITS.maxSignatures || signatures.size > SIGNATURE_LIMITS.maxSignatures) {
    throw new MessageSignatureError('malformed', `A request may carry at most ${SIGNATURE_LIMITS.maxSignatures} signatures.`);
  }
  const parsed: ParsedSignature[] = [];
  for (const [label, member] of inputs) {
    const [items, params] = member;
    if (!Array.isArray(items)) throw new MessageSignatureError('malformed', `Signature-Input ${label} is not an inner list.`);
    if (items.length > SIGNATURE_LIMITS.maxComponents) throw new MessageSignatureError('malformed', `Signature-Input ${label} covers more than ${SIGNATURE_LIMITS.maxComponents} components.`);
    const components: string[] = [];
    for (const [item, itemParams] of items) {
      if (typeof item !== 'string') throw new MessageSignatureError('malformed', `Signature-Input ${label} names a component that is not a string.`);
      if (itemParams.size > 0) throw new MessageSignatureError('malformed', `Signature-Input ${label}: component parameters (on "${item}") are not supported.`);
      if (item !== item.toLowerCase()) throw new MessageSignatureError('malformed', `Signature-Input ${label}: component names are lowercase ("${item}").`);
      components.push(item);
    }
    const signatureMember = signatures.get(label);
    if (!signatureMember) throw new MessageSignatureError('malformed', `Signature has no entry for ${label}.`);
    const signatureBytes = signatureMember[0];
    if (!(signatureBytes instanceof ArrayBuffer)) throw new MessageSignatureError('malformed', `Signature ${label} is not a byte sequence.`);
    const entry: ParsedSignature = {
      label,
      components,
      params,
      signatureParams: serializeSignatureParams(components, params),
      signature: new Uint8Array(signatureBytes),
    };
    for (const [name, value] of params) {
      if (INTEGER_PARAMS.has(name)) {
        if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new MessageSignatureError('malformed', `Signature-Input ${label}: ${name} is not a non-negative integer.`);
        if (name === 'created') entry.created = value;
        else entry.expires = value;
      } else if (STRING_PARAMS.has(name)) {
        if (typeof value !== 'string') throw new MessageSignatureError('malformed', `Signature-Input ${label}: ${name} is not a string.`);
        (entry as unknown as Record<string, unknown>)[name] = value;
      }
    }
    parsed.push(entry);
  }
  return parsed;
}

/** The signature base a parsed signature claims to cover, rebuilt from this request. */
export function signatureBaseFor(request: HttpRequestLike, signature: ParsedSignature): string {
  return createSignatureBase(request, signature.components, signature.signatureParams);
}

