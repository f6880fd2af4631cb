/**
 * Profile `svc-agent/1`: a customer's agent signing its calls to an inbox (RFC 9421, Ed25519), Web
 * Bot Auth compatible. docs/identity.md describes it.
 *
 * Two ways to name the key, each with its header covered by the signature:
 * - the agent's own key in `Svc-Agent-Key` (an RFC 8941 dictionary: label → byte sequence of the
 *   public JWK's JSON, or one byte sequence), signature tag `svc-agent` (or `web-bot-auth`);
 * - a platform named by `Signature-Agent` (an https origin, as a string item or a dictionary member
 *   for the label, as Web Bot Auth drafts spell it), whose key directory
 *   (`/.well-known/http-message-signatures-directory`) holds the key; tag `web-bot-auth` (or `svc-agent`).
 *
 * Covered: always `@authority` (the receiver's own host) and the key's header; a request that is not
 * GET or HEAD also `@method` and `@path` (and `@query` when there is one), and `content-digest` when it
 * has a body. Parameters `created`, `expires` (0 < expires - created <= 300), `nonce` (16 to 256
 * characters), `keyid` (RFC 7638 thumbprint), `alg="ed25519"` when given, `tag`. 60 s of skew.
 *
 * Verifying never refuses a request: the caller serves a request whose signature fails as unsigned
 * (and says why in `Svc-Signature`). Replay is the caller's to judge (a change is kept once; reads
 * are not recorded), with `signatureId`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { parseDictionary, parseItem, serializeDictionary } from 'structured-headers';
import { bodyBytes, checkContentDigest, contentDigestHeader } from './content-digest.js';
import { ed25519JwkProblem, ed25519PrivateKey, ed25519PublicJwk, ed25519PublicKey, ed25519Thumbprint, type Ed25519PrivateJwk, type Ed25519PublicJwk } from './ed25519-keys.js';
import { MessageSignatureError, headerField, parseSignatures, signMessage, signatureBaseFor, verifyEd25519, type HeaderSource, type ParsedSignature } from './message-signatures.js';
import type { IncomingSignedRequest, SignatureFailureReason } from './instance-profile.js';

export const AGENT_PROFILE = {
  name: 'svc-agent/1',
  /** Signature tags this profile reads, in the order a verifier prefers them. */
  tags: ['svc-agent', 'web-bot-auth'],
  alg: 'ed25519',
  /** The agent's own key. */
  keyHeader: 'svc-agent-key',
  /** A platform whose key directory holds the key (Web Bot Auth). */
  agentHeader: 'signature-agent',
  /** Where a platform publishes its keys (Web Bot Auth directory). */
  directoryPath: '/.well-known/http-message-signatures-directory',
  /** Headers a signature may cover and still be forwarded to a network (besides the key's header). */
  forwardableHeaders: ['content-digest', 'content-type', 'svc-pass'],
  /** Derived components a forwardable signature may cover. */
  forwardableDerived: ['@method', '@authority', '@path', '@query', '@target-uri', '@request-target', '@scheme'],
  label: 'svc',
  maxValiditySeconds: 300,
  clockSkewSeconds: 60,
  replayGraceSeconds: 60,
  nonceMinLength: 16,
  nonceMaxLength: 256,
  /** Longest Svc-Agent-Key or Signature-Agent value read. */
  maxKeyHeaderLength: 2048,
} as const;

/** Query parameters that hold secrets: a signed request must not carry them in its URL. */
const SECRET_QUERY_PARAMETERS = ['access_token', 'pass', 'key', 'token', 'code'];

export type AgentSignatureFailureReason = SignatureFailureReason | 'key_unavailable';

export interface AgentSignatureFailure {
  ok: false;
  reason: AgentSignatureFailureReason;
  detail: string;
  keyid?: string;
}

/** Why a verified signature may not be forwarded to a network (the identity then says carries_secret). */
export type ForwardRefusal = 'covers_other_headers' | 'secret_in_url';

export interface VerifiedAgentRequest {
  ok: true;
  tag: string;
  keyid: string;
  /** RFC 7638 thumbprint of the key (equals keyid). */
  jkt: string;
  key: Ed25519PublicJwk;
  /** The platform origin named by Signature-Agent, or null for an agent's own key. */
  platform: string | null;
  created: number;
  expires: number;
  nonce: string;
  label: string;
  components: string[];
  /** Covers @method and @path (and @query when there is one): bound to this request, so it may stand in for an item's token. */
  bound: boolean;
  /** base64url SHA-256 of the signature bytes: the replay store's id. */
  signatureId: string;
  /** Until when a replay store should remember it (unix seconds). */
  keepUntil: number;
  /** Why it may not be forwarded to a network, or null when it may. */
  forwardRefusal: ForwardRefusal | null;
  /** What a network needs to check it: the Signature-Input and Signature members, and the base. */
  forward: { label: string; signature_input: string; signature: string; signature_base: string };
}

export type AgentVerification = VerifiedAgentRequest | AgentSignatureFailure;

/** Finds a platform's key by keyid in its directory; null when it has none, throws when unreachable. */
export type DirectoryKeyLookup = (query: { keyid: string; platform: string }) => Promise<Ed25519PublicJwk | null | undefined>;

export interface VerifyAgentRequestOptions {
  lookupDirectoryKey: DirectoryKeyLookup;
  now?: () => number;
  clockSkewSeconds?: number;
  /** Lets http:// Signature-Agent origins through (development and tests only). */
  allowHttpPlatform?: boolean;
}

function failure(reason: AgentSignatureFailureReason, detail: string, keyid?: string): AgentSignatureFailure {
  return keyid === undefined ? { ok: false, reason, detail } : { ok: false, reason, detail, keyid };
}

/** Whether a request carries any signature at all (unsigned requests skip verification entirely). */
export function hasSignature(headers: HeaderSource): boolean {
  return headerField(headers, 'signature-input') !== undefined || headerField(headers, 'signature') !== undefined;
}

/** The components svc-agent/1 requires of a request. */
export function agentComponents(url: URL, method: string, hasBody: boolean, keyHeader: string): string[] {
  const components = ['@authority'];
  if (method !== 'GET' && method !== 'HEAD') {
    components.unshift('@method');
    components.push('@path');
    if (url.search !== '') components.push('@query');
  }
  if (hasBody) components.push('content-digest');
  components.push(keyHeader);
  return components;
}

/** The platform origin a Signature-Agent value names for a label, or null. */
export function signatureAgentOrigin(value: string, label: string, allowHttp: boolean): string | null {
  if (value.length > AGENT_PROFILE.maxKeyHeaderLength) return null;
  let named: string | null = null;
  try {
    const item = parseItem(value);
    if (typeof item[0] === 'string') named = item[0];
  } catch {
    try {
      const member = parseDictionary(value).get(label);
      if (member && typeof member[0] === 'string') named = member[0];
    } catch {
      named = null;
    }
  }
  if (named === null) return null;
  let url: URL;
  try {
    url = new URL(named);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) return null;
  if (url.username || url.password || url.search || url.hash) return null;
  return url.origin;
}

/** The JWK an agent put in Svc-Agent-Key for a label (or its only key), or a reason it has none. */
export function agentKeyFromHeader(value: string, label: string): Ed25519PublicJwk | string {
  if (value.length > AGENT_PROFILE.maxKeyHeaderLength) return 'Svc-Agent-Key is too long';
  let bytes: ArrayBuffer | null = null;
  try {
    const dictionary = parseDictionary(value);
    const member = dictionary.get(label) ?? (dictionary.size === 1 ? [...dictionary.values()][0] : undefined);
    if (member && member[0] instanceof ArrayBuffer) bytes = member[0];
  } catch {
    try {
      const item = parseItem(value);
      if (item[0] instanceof ArrayBuffer) bytes = item[0];
    } catch {
      bytes = null;
    }
  }
  if (bytes === null) return `Svc-Agent-Key holds no byte sequence for ${label}`;
  let jwk: unknown;
  try {
    jwk = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return 'Svc-Agent-Key is not a JSON JWK';
  }
  const problem = ed25519JwkProblem(jwk);
  if (problem) return `Svc-Agent-Key: ${problem}`;
  return ed25519PublicJwk(jwk as Ed25519PublicJwk);
}

function toUrl(url: string | URL): URL | null {
  try {
    return url instanceof URL ? url : new URL(url);
  } catch {
    return null;
  }
}

/** Why the signature may not be forwarded: a header beyond the allowed ones, or a secret in the URL. */
function forwardRefusalOf(url: URL, components: readonly string[], keyHeader: string): ForwardRefusal | null {
  const allowed = new Set<string>([...AGENT_PROFILE.forwardableHeaders, ...AGENT_PROFILE.forwardableDerived, keyHeader]);
  if (components.some((c) => !allowed.has(c))) return 'covers_other_headers';
  for (const name of url.searchParams.keys()) if (SECRET_QUERY_PARAMETERS.includes(name.toLowerCase())) return 'secret_in_url';
  return null;
}

/**
 * Verifies a request signed under svc-agent/1. Checks, in order: the fields parse; one signature has
 * a tag of the profile; its parameters; the covered components and their headers; the key's header;
 * the time window; the body against Content-Digest; the key (own or from the platform's directory);
 * the Ed25519 signature. Nothing is recorded: replay is the caller's (it knows whether the call changes anything).
 */
export async function verifyAgentRequest(request: IncomingSignedRequest, options: VerifyAgentRequestOptions): Promise<AgentVerification> {
  const skew = options.clockSkewSeconds ?? AGENT_PROFILE.clockSkewSeconds;
  const url = toUrl(request.url);
  if (!url) return failure('malformed', 'The request URL is not absolute.');
  let signatures: ParsedSignature[];
  try {
    signatures = parseSignatures(request.headers);
  } catch (error) {
    if (error instanceof MessageSignatureError) return failure(error.code === 'missing' ? 'missing' : 'malformed', error.message);
    throw error;
  }
  let signature: ParsedSignature | undefined;
  for (const tag of AGENT_PROFILE.tags) {
    const tagged = signatures.filter((s) => s.tag === tag);
    if (tagged.length > 1) return failure('malformed', `More than one signature has tag="${tag}".`);
    if (tagged.length === 1) {
      signature = tagged[0];
      break;
    }
  }
  if (!signature) return failure('profile_mismatch', `No signature has tag="svc-agent" or tag="web-bot-auth" (profile ${AGENT_PROFILE.name}).`);
  const keyid = signature.keyid;
  if (keyid === undefined || keyid === '') return failure('profile_mismatch', 'The signature has no keyid.');
  if (signature.alg !== undefined && signature.alg !== AGENT_PROFILE.alg) return failure('profile_mismatch', `The signature's alg must be "${AGENT_PROFILE.alg}".`, keyid);
  if (signature.created === undefined || signature.expires === undefined) return failure('profile_mismatch', 'The signature needs created and expires.', keyid);
  const nonce = signature.nonce;
  if (nonce === undefined || nonce.length < AGENT_PROFILE.nonceMinLength || nonce.length > AGENT_PROFILE.nonceMaxLength) {
    return failure('profile_mismatch', `The signature needs a nonce of ${AGENT_PROFILE.nonceMinLength} to ${AGENT_PROFILE.nonceMaxLength} characters.`, keyid);
  }
  const { created, expires } = signature;
  if (expires <= created || expires - created > AGENT_PROFILE.maxValiditySeconds) {
    return failure('profile_mismatch', `expires must be after created and at most ${AGENT_PROFILE.maxValiditySeconds} seconds after it.`, keyid);
  }
  if (signature.signature.length !== 64) return failure('malformed', 'An Ed25519 signature is 64 bytes.', keyid);

  const covered = new Set(signature.components);
  const keyHeader = covered.has(AGENT_PROFILE.agentHeader) ? AGENT_PROFILE.agentHeader : AGENT_PROFILE.keyHeader;
  const body = bodyBytes(request.body);
  const method = request.method.toUpperCase();
  const required = agentComponents(url, method, body.length > 0, keyHeader);
  const uncovered = required.filter((c) => !covered.has(c));
  if (uncovered.length > 0) return failure('component_missing', `The signature must cover ${uncovered.join(', ')}.`, keyid);
  for (const component of signature.components) {
    if (!component.startsWith('@') && headerField(request.headers, component) === undefined) {
      return failure('component_missing', `The covered header ${component} is not in the request.`, keyid);
    }
  }

  // The key's header, read before any clock or key work.
  const keyValue = headerField(request.headers, keyHeader) as string;
  let platform: string | null = null;
  let ownKey: Ed25519PublicJwk | null = null;
  if (keyHeader === AGENT_PROFILE.agentHeader) {
    platform = signatureAgentOrigin(keyValue, signature.label, options.allowHttpPlatform === true);
    if (!platform) return failure('profile_mismatch', 'Signature-Agent must name an https origin.', keyid);
  } else {
    const read = agentKeyFromHeader(keyValue, signature.label);
    if (typeof read === 'string') return failure('unknown_key', `${read}.`, keyid);
    ownKey = read;
  }

  const now = (options.now ?? Date.now)() / 1000;
  if (created > now + skew) return failure('too_far_in_future', `The signature was created ${Math.round(created - now)} seconds in the future; at most ${skew} are tolerated.`, keyid);
  if (now > expires + skew) return failure('expired', `The signature expired ${Math.round(now - expires)} seconds ago.`, keyid);

  const digestField = headerField(request.headers, 'content-digest');
  if (covered.has('content-digest') && digestField !== undefined) {
    const check = checkContentDigest(digestField, body);
    if (!check.ok) return failure(check.problem === 'malformed' ? 'malformed' : 'digest_mismatch', check.detail, keyid);
  }

  let jwk: Ed25519PublicJwk | null | undefined = ownKey;
  if (platform !== null) {
    try {
      jwk = await options.lookupDirectoryKey({ keyid, platform });
    } catch {
      return failure('key_unavailable', `The key directory of ${platform} could not be read now.`, keyid);
    }
    if (!jwk) return failure('unknown_key', `${platform} publishes no key ${keyid}.`, keyid);
  }
  if (!jwk || ed25519JwkProblem(jwk) !== null) return failure('unknown_key', `The key ${keyid} is not a usable Ed25519 key.`, keyid);
  if (ed25519Thumbprint(jwk) !== keyid) return failure('unknown_key', `The key does not have the thumbprint ${keyid}.`, keyid);

  let base: string;
  try {
    base = signatureBaseFor(request, signature);
  } catch (error) {
    if (error instanceof MessageSignatureError) return failure(error.code === 'component_missing' ? 'component_missing' : 'malformed', error.message, keyid);
    throw error;
  }
  if (!verifyEd25519(base, signature.signature, ed25519PublicKey(jwk))) return failure('bad_signature', 'The signature does not verify with the key it names.', keyid);

  const bound = covered.has('@method') && covered.has('@path') && (url.search === '' || covered.has('@query'));
  const signatureId = createHash('sha256').update(signature.signature).digest('base64url');
  return {
    ok: true,
    tag: signature.tag as string,
    keyid,
    jkt: keyid,
    key: ed25519PublicJwk(jwk),
    platform,
    created,
    expires,
    nonce,
    label: signature.label,
    components: [...signature.components],
    bound,
    signatureId,
    keepUntil: expires + Math.max(AGENT_PROFILE.replayGraceSeconds, skew),
    forwardRefusal: forwardRefusalOf(url, signature.components, keyHeader),
    forward: {
      label: signature.label,
      signature_input: `${signature.label}=${signature.signatureParams}`,
      signature: serializeDictionary(new Map([[signature.label, [signature.signature.buffer.slice(signature.signature.byteOffset, signature.signature.byteOffset + signature.signature.byteLength) as ArrayBuffer, new Map()]]])),
      signature_base: base,
    },
  };
}

/** The value of `Svc-Signature` for a signature that did not verify: `invalid; reason=<reason>`. */
export function invalidSignatureHeader(reason: AgentSignatureFailureReason): string {
  return `invalid; reason=${reason}`;
}

export interface SignAgentRequestOptions {
  method: string;
  url: string | URL;
  body?: Uint8Array | string | null;
  privateJwk: Ed25519PrivateJwk;
  /** Sign as a platform's key (Signature-Agent) instead of sending the key itself (Svc-Agent-Key). */
  platform?: string;
  /** svc-agent by default; web-bot-auth for a platform's Web Bot Auth signatures. */
  tag?: 'svc-agent' | 'web-bot-auth';
  /** Headers to cover besides the profile's (lowercase names), with their values. */
  extraHeaders?: Record<string, string>;
  now?: () => number;
  validitySeconds?: number;
  nonce?: string;
}

/** Headers an agent adds to a request signed under svc-agent/1 (send the body byte for byte). */
export function signAgentRequest(options: SignAgentRequestOptions): Record<string, string> {
  const url = toUrl(options.url);
  if (!url) throw new TypeError('url must be an absolute URL');
  const method = options.method.toUpperCase();
  const validity = options.validitySeconds ?? AGENT_PROFILE.maxValiditySeconds;
  const created = Math.floor((options.now ?? Date.now)() / 1000);
  const body = bodyBytes(options.body);
  const key = ed25519PrivateKey(options.privateJwk);
  const keyid = ed25519Thumbprint(options.privateJwk);
  const label = AGENT_PROFILE.label;
  const headers: Record<string, string> = {};
  if (body.length > 0) headers['content-digest'] = contentDigestHeader(body);
  let keyHeader: string;
  if (options.platform !== undefined) {
    keyHeader = AGENT_PROFILE.agentHeader;
    headers[keyHeader] = serializeDictionary(new Map([[label, [options.platform, new Map()]]]));
  } else {
    keyHeader = AGENT_PROFILE.keyHeader;
    const publicJson = JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: options.privateJwk.x });
    headers[keyHeader] = serializeDictionary(new Map([[label, [Uint8Array.from(Buffer.from(publicJson, 'utf8')).buffer, new Map()]]]));
  }
  for (const [name, value] of Object.entries(options.extraHeaders ?? {})) headers[name.toLowerCase()] = value;
  // Our signatures are always bound to the request (method, path and query), reads included.
  const components = ['@method', '@authority', '@path', ...(url.search !== '' ? ['@query'] : []), ...(body.length > 0 ? ['content-digest'] : []), keyHeader];
  for (const name of Object.keys(options.extraHeaders ?? {})) if (!components.includes(name.toLowerCase())) components.push(name.toLowerCase());
  const signed = signMessage(
    { method, url, headers },
    {
      label,
      components,
      params: { created, expires: created + validity, nonce: options.nonce ?? randomBytes(32).toString('base64url'), alg: AGENT_PROFILE.alg, keyid, tag: options.tag ?? 'svc-agent' },
      key,
    },
  );
  return { ...headers, 'signature-input': signed['Signature-Input'], signature: signed.Signature };
}
