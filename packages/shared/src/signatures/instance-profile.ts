/**
 * Profile `svc-instance/1`: an inbox instance signing its calls to a network (registration,
 * hourly pings, receipt publication) with its receipt key. docs/signatures.md describes it.
 *
 * Covered, in this order: `@method`, `@authority` (the receiver's own host), `@path`, `@query` when
 * the URL has a query, `content-digest` (RFC 9530, sha-256) when there is a body, `svc-instance`
 * (the caller's origin, `https://<domain>`). Parameters: `created`, `expires`, `nonce`, `alg="ed25519"`,
 * `keyid` (the key's RFC 7638 thumbprint), `tag="svc-instance"`. `0 < expires - created <= 300`,
 * 60 s of clock skew, each signature accepted once (kept until expires + 60 s).
 */
import { createHash, randomBytes } from 'node:crypto';
import { bodyBytes, checkContentDigest, contentDigestHeader } from './content-digest.js';
import {
  Ed25519KeyError,
  ed25519JwkProblem,
  ed25519PrivateKey,
  ed25519PublicKey,
  ed25519Thumbprint,
  type Ed25519PrivateJwk,
  type Ed25519PublicJwk,
} from './ed25519-keys.js';
import {
  MessageSignatureError,
  headerField,
  parseSignatures,
  signMessage,
  signatureBaseFor,
  verifyEd25519Async,
  type HeaderSource,
  type ParsedSignature,
} from './message-signatures.js';
import type { ReplayStore } from './replay-store.js';

export const INSTANCE_PROFILE = {
  name: 'svc-instance/1',
  tag: 'svc-instance',
  alg: 'ed25519',
  /** The header naming the calling instance, covered by the signature. */
  instanceHeader: 'svc-instance',
  /** The label our signer uses (a verifier finds the signature by its tag, whatever the label). */
  label: 'svc',
  /** Longest validity a signature may claim: expires - created. */
  maxValiditySeconds: 300,
  /** Clock difference tolerated either way. */
  clockSkewSeconds: 60,
  /** How long past its expiry a seen signature is still remembered (at least). */
  replayGraceSeconds: 60,
  /** Nonce length bounds (characters); ours are 32 random bytes in base64url (43). */
  nonceMinLength: 16,
  nonceMaxLength: 256,
  /** Longest Svc-Instance value. */
  maxInstanceLength: 300,
} as const;

/** Why a signed instance request was refused; `signatureProblem` turns each into a Problem. */
export type SignatureFailureReason =
  | 'missing'
  | 'malformed'
  | 'unknown_key'
  | 'bad_signature'
  | 'expired'
  | 'too_far_in_future'
  | 'replayed'
  | 'digest_mismatch'
  | 'component_missing'
  | 'profile_mismatch'
  | 'replay_store_full';

export interface SignatureFailure {
  ok: false;
  reason: SignatureFailureReason;
  /** One sentence for the problem document's detail; never echoes secrets. */
  detail: string;
  /** The keyid claimed, when one was read. */
  keyid?: string;
}

export interface VerifiedInstanceRequest {
  ok: true;
  keyid: string;
  /** The calling instance's origin, from the covered Svc-Instance header. */
  instance: string;
  created: number;
  expires: number;
  nonce: string;
  label: string;
  components: string[];
  /** The key that verified it. */
  key: Ed25519PublicJwk;
  /** base64url SHA-256 of the signature bytes (the replay store's id). */
  signatureId: string;
}

export type InstanceVerification = VerifiedInstanceRequest | SignatureFailure;

/** Finds the public key for a keyid claimed by an instance; null when unknown (after any refresh it chooses to make). */
export type InstanceKeyLookup = (query: { keyid: string; instance: string }) => Promise<Ed25519PublicJwk | null | undefined>;

export interface IncomingSignedRequest {
  method: string;
  /** The URL as this service knows itself: its configured public origin + the request's path and query. */
  url: string | URL;
  headers: HeaderSource;
  /** The raw body bytes exactly as received (empty or absent when there is none). */
  body?: Uint8Array | string | null;
}

export interface VerifyInstanceRequestOptions {
  lookupKey: InstanceKeyLookup;
  replayStore: ReplayStore;
  /** Milliseconds since the epoch; Date.now by default. */
  now?: () => number;
  clockSkewSeconds?: number;
  maxValiditySeconds?: number;
  /** When set, the Svc-Instance origin must be exactly this (e.g. the domain in the path). */
  expectedInstance?: string;
  /** Lets `http://` instance origins through (development and tests only). */
  allowHttpInstance?: boolean;
}

function failure(reason: SignatureFailureReason, detail: string, keyid?: string): SignatureFailure {
  return keyid === undefined ? { ok: false, reason, detail } : { ok: false, reason, detail, keyid };
}

/** The instance origin if `value` is one (`https://host[:port]`, lowercase, nothing else), else null. */
export function instanceOrigin(value: string, allowHttp = false): string | null {
  if (value.length > INSTANCE_PROFILE.maxInstanceLength) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) return null;
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return null;
  return url.origin === value ? value : null;
}

/** The components svc-instance/1 requires for this request. */
export function instanceComponents(url: URL, hasBody: boolean): string[] {
  const components = ['@method', '@authority', '@path'];
  if (url.search !== '') components.push('@query');
  if (hasBody) components.push('content-digest');
  components.push(INSTANCE_PROFILE.instanceHeader);
  return components;
}

function toUrl(url: string | URL): URL | null {
  try {
    return url instanceof URL ? url : new URL(url);
  } catch {
    return null;
  }
}

/**
 * Verifies a signed instance request. Checks, in order: the fields parse; exactly one signature has
 * tag svc-instance; its parameters and covered components are the profile's; the Svc-Instance
 * origin; the time window; the body against Content-Digest; the key (lookupKey); the Ed25519
 * signature; and last that the signature was not seen before (only a valid signature is recorded).
 */
export async function verifyInstanceRequest(request: IncomingSignedRequest, options: VerifyInstanceRequestOptions): Promise<InstanceVerification> {
  const skew = options.clockSkewSeconds ?? INSTANCE_PROFILE.clockSkewSeconds;
  const maxValidity = options.maxValiditySeconds ?? INSTANCE_PROFILE.maxValiditySeconds;
  const url = toUrl(request.url);
  if (!url) return failure('malformed', 'The request URL is not absolute.');

  let signatures: ParsedSignature[];
  try {
    signatures = parseSignatures(request.headers);
  } catch (error) {
    if (error instanceof MessageSignatureError) return failure(error.code === 'missing' ? 'missing' : 'malformed', error.message);
    throw error;
  }
  const ours = signatures.filter((s) => s.tag === INSTANCE_PROFILE.tag);
  if (ours.length === 0) return failure('profile_mismatch', `No signature has tag="${INSTANCE_PROFILE.tag}" (profile ${INSTANCE_PROFILE.name}).`);
  if (ours.length > 1) return failure('malformed', `More than one signature has tag="${INSTANCE_PROFILE.tag}".`);
  const signature = ours[0] as ParsedSignature;
  const keyid = signature.keyid;

  // Parameters.
  if (keyid === undefined || keyid === '') return failure('profile_mismatch', 'The signature has no keyid.');
  if (signature.alg !== INSTANCE_PROFILE.alg) return failure('profile_mismatch', `The signature's alg must be "${INSTANCE_PROFILE.alg}".`, keyid);
  if (signature.created === undefined) return failure('profile_mismatch', 'The signature has no created time.', keyid);
  if (signature.expires === undefined) return failure('profile_mismatch', 'The signature has no expires time.', keyid);
  const nonce = signature.nonce;
  if (nonce === undefined || nonce.length < INSTANCE_PROFILE.nonceMinLength || nonce.length > INSTANCE_PROFILE.nonceMaxLength) {
    return failure('profile_mismatch', `The signature needs a nonce of ${INSTANCE_PROFILE.nonceMinLength} to ${INSTANCE_PROFILE.nonceMaxLength} characters.`, keyid);
  }
  const { created, expires } = signature;
  if (expires <= created || expires - created > maxValidity) {
    return failure('profile_mismatch', `expires must be after created and at most ${maxValidity} seconds after it.`, keyid);
  }
  if (signature.signature.length !== 64) return failure('malformed', 'An Ed25519 signature is 64 bytes.', keyid);

  // Covered components.
  const body = bodyBytes(request.body);
  const required = instanceComponents(url, body.length > 0);
  const covered = new Set(signature.components);
  const uncovered = required.filter((c) => !covered.has(c));
  if (uncovered.length > 0) return failure('component_missing', `The signature must cover ${uncovered.join(', ')}.`, keyid);
  for (const component of signature.components) {
    if (!component.startsWith('@') && headerField(request.headers, component) === undefined) {
      return failure('component_missing', `The covered header ${component} is not in the request.`, keyid);
    }
  }

  // The calling instance.
  const instanceValue = headerField(request.headers, INSTANCE_PROFILE.instanceHeader) as string;
  const instance = instanceOrigin(instanceValue, options.allowHttpInstance === true);
  if (!instance) return failure('profile_mismatch', 'Svc-Instance must be the calling instance\'s origin, https://<domain>.', keyid);
  if (options.expectedInstance !== undefined && instance !== options.expectedInstance) {
    return failure('profile_mismatch', `The request is signed for ${instance}, not ${options.expectedInstance}.`, keyid);
  }

  // Time window.
  const now = (options.now ?? Date.now)() / 1000;
  if (created > now + skew) return failure('too_far_in_future', `The signature was created ${Math.round(created - now)} seconds in the future; at most ${skew} are tolerated.`, keyid);
  if (now > expires + skew) return failure('expired', `The signature expired ${Math.round(now - expires)} seconds ago.`, keyid);

  // Body.
  const digestField = headerField(request.headers, 'content-digest');
  if (covered.has('content-digest') && digestField !== undefined) {
    const check = checkContentDigest(digestField, body);
    if (!check.ok) return failure(check.problem === 'malformed' ? 'malformed' : 'digest_mismatch', check.detail, keyid);
  }

  // Key.
  const jwk = await options.lookupKey({ keyid, instance });
  if (!jwk) return failure('unknown_key', `No key ${keyid} is known for ${instance}.`, keyid);
  const keyProblem = ed25519JwkProblem(jwk);
  if (keyProblem) return failure('unknown_key', `The key ${keyid} is not a usable Ed25519 key: ${keyProblem}.`, keyid);
  if (ed25519Thumbprint(jwk) !== keyid) return failure('unknown_key', `The key found for ${keyid} does not have that thumbprint.`, keyid);

  // Signature.
  let base: string;
  try {
    base = signatureBaseFor(request, signature);
  } catch (error) {
    if (error instanceof MessageSignatureError) return failure(error.code === 'component_missing' ? 'component_missing' : 'malformed', error.message, keyid);
    throw error;
  }
  // On the thread pool: a network checks many of these at once.
  if (!(await verifyEd25519Async(base, signature.signature, ed25519PublicKey(jwk)))) return failure('bad_signature', 'The signature does not verify with the key it names.', keyid);

  // Replay.
  const signatureId = createHash('sha256').update(signature.signature).digest('base64url');
  const keepUntil = expires + Math.max(INSTANCE_PROFILE.replayGraceSeconds, skew);
  const outcome = await options.replayStore.remember(signatureId, keepUntil, now);
  if (outcome === 'seen') return failure('replayed', 'This signature was already used; sign each request anew.', keyid);
  if (outcome === 'full') return failure('replay_store_full', 'Too many signed requests to remember right now; try again shortly.', keyid);

  return {
    ok: true,
    keyid,
    instance,
    created,
    expires,
    nonce,
    label: signature.label,
    components: [...signature.components],
    key: jwk,
    signatureId,
  };
}

export interface SignInstanceRequestOptions {
  method: string;
  /** The network URL being called; its host is the signed @authority. */
  url: string | URL;
  /** The body exactly as it will be sent (bytes, or a string sent as UTF-8); omit or empty for none. */
  body?: Uint8Array | string | null;
  /** This instance's origin, https://<domain>; sent as Svc-Instance. */
  instance: string;
  privateJwk: Ed25519PrivateJwk;
  /** Defaults to the key's RFC 7638 thumbprint (which is what a verifier checks it against). */
  keyid?: string;
  /** Milliseconds since the epoch; Date.now by default. */
  now?: () => number;
  /** expires - created; 300 by default and at most that. */
  validitySeconds?: number;
  /** A fresh random nonce by default. */
  nonce?: string;
  /** Let an http:// instance origin through (development and tests only). */
  allowHttpInstance?: boolean;
}

/** Headers to add to an outgoing request, canonical capitalisation. Content-Digest only when there is a body. */
export type InstanceSignatureHeaders = {
  'Content-Digest'?: string;
  'Svc-Instance': string;
  'Signature-Input': string;
  Signature: string;
};

/** Signs an outgoing request under svc-instance/1; returns the headers to add (send the body byte for byte). */
export function signInstanceRequest(options: SignInstanceRequestOptions): InstanceSignatureHeaders {
  const url = toUrl(options.url);
  if (!url) throw new TypeError('url must be an absolute URL');
  const instance = instanceOrigin(options.instance, options.allowHttpInstance === true);
  if (!instance) throw new TypeError('instance must be an origin such as https://inbox.example');
  const validity = options.validitySeconds ?? INSTANCE_PROFILE.maxValiditySeconds;
  if (!Number.isInteger(validity) || validity <= 0 || validity > INSTANCE_PROFILE.maxValiditySeconds) {
    throw new RangeError(`validitySeconds must be an integer from 1 to ${INSTANCE_PROFILE.maxValiditySeconds}`);
  }
  // Our own checks first (kid, then the pair inside ed25519PrivateKey), before node:crypto sees the key.
  const thumbprint = ed25519Thumbprint(options.privateJwk);
  const keyid = options.keyid ?? thumbprint;
  if (keyid !== thumbprint) throw new Ed25519KeyError('keyid must be the key\'s RFC 7638 thumbprint');
  const key = ed25519PrivateKey(options.privateJwk);
  const created = Math.floor((options.now ?? Date.now)() / 1000);
  const body = bodyBytes(options.body);
  const headers: InstanceSignatureHeaders = { 'Svc-Instance': instance, 'Signature-Input': '', Signature: '' };
  if (body.length > 0) headers['Content-Digest'] = contentDigestHeader(body);
  const signed = signMessage(
    { method: options.method.toUpperCase(), url, headers },
    {
      label: INSTANCE_PROFILE.label,
      components: instanceComponents(url, body.length > 0),
      params: {
        created,
        expires: created + validity,
        nonce: options.nonce ?? randomBytes(32).toString('base64url'),
        alg: INSTANCE_PROFILE.alg,
        keyid,
        tag: INSTANCE_PROFILE.tag,
      },
      key,
    },
  );
  headers['Signature-Input'] = signed['Signature-Input'];
  headers.Signature = signed.Signature;
  return headers;
}
