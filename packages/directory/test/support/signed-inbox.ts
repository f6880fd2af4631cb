/**
 * A fake inbox for tests of signed calls (issue 13): a tiny server on 127.0.0.1 serving a manifest
 * whose receipt_keys hold its Ed25519 keys, and helpers that sign what a real inbox signs with the
 * shared helpers: requests (svc-instance/1), receipts (svc-receipt+jws) and, with an agent key,
 * acknowledgements (svc-receipt-ack+jws). Signatures name the directory's public URL (its
 * @authority), as an inbox calling it at that address would.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import {
  RECEIPT_ACK_TYP,
  RECEIPT_CLAIMS_VERSION,
  RECEIPT_TYP,
  ed25519PrivateKey,
  generateEd25519Key,
  receiptSha256,
  signCompactJws,
  signInstanceRequest,
  type Ed25519PrivateJwk,
  type Ed25519PublicJwk,
  type ReceiptClaims,
} from '@svc/shared';
import type { ApiResponse, TestDirectory } from './harness.js';

export interface SigningKey {
  kid: string;
  privateJwk: Ed25519PrivateJwk;
  publicJwk: Ed25519PublicJwk;
}

export type Respond = (req: IncomingMessage, res: ServerResponse, inbox: SignedInbox) => void;

export interface SignedInbox {
  domain: string;
  origin: string;
  /** The key it signs with (the first of `published`, unless a test says otherwise). */
  key: SigningKey;
  /** The keys its manifest publishes. */
  published: SigningKey[];
  /** Requests it received, `METHOD /path`. */
  hits: string[];
  respond: Respond;
  manifest(overrides?: Record<string, unknown>): Record<string, unknown>;
  close(): Promise<void>;
}

export function newKey(): SigningKey {
  const { kid, privateJwk, publicJwk } = generateEd25519Key();
  return { kid, privateJwk, publicJwk };
}

const servers: Server[] = [];

export function manifestFor(origin: string, keys: readonly SigningKey[], overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    spec: 'svc-inbox/0',
    instance: origin,
    software: { name: 'svc-inbox', version: '0.4.2' },
    item_types: ['booking', 'order', 'message'],
    protocols: { rest: `${origin}/v1`, openapi: `${origin}/openapi.json`, mcp: `${origin}/mcp` },
    profile: {
      name: `Inbox ${origin.slice(-5)}`,
      description: 'A test inbox',
      categories: ['hair-beauty'],
      address: { addressLocality: 'Coimbra', addressCountry: 'PT' },
      languages: ['pt', 'en'],
      services: [{ name: 'Corte', type: 'booking' }],
    },
    receipt_keys: { keys: keys.map((k) => ({ ...k.publicJwk, kid: k.kid, alg: 'EdDSA', use: 'sig' })) },
    ...overrides,
  };
}

export const serveManifest =
  (overrides: Record<string, unknown> = {}): Respond =>
  (req, res, inbox) => {
    if (req.url === '/.well-known/agent-inbox.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(inbox.manifest(overrides)));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{}');
    }
  };

export async function signedInbox(respond: Respond = serveManifest()): Promise<SignedInbox> {
  const key = newKey();
  const inbox = { hits: [] as string[], respond, key, published: [key] } as SignedInbox;
  const server = createServer((req, res) => {
    inbox.hits.push(`${req.method} ${req.url}`);
    inbox.respond(req, res, inbox);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const port = (server.address() as AddressInfo).port;
  inbox.domain = `127.0.0.1:${port}`;
  inbox.origin = `http://127.0.0.1:${port}`;
  inbox.manifest = (overrides = {}) => manifestFor(inbox.origin, inbox.published, overrides);
  inbox.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return inbox;
}

export async function closeSignedInboxes(): Promise<void> {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
}

export interface SignOptions {
  /** Sign as this key (default: the inbox's). */
  key?: Pick<SigningKey, 'privateJwk'>;
  /** Svc-Instance to claim (default: the inbox's origin). */
  instance?: string;
  /** The clock the signature's created time is read from (default: the directory's). */
  now?: number;
  /** The exact body bytes (default: JSON of `body`). */
  rawBody?: string;
}

/** The headers and body a real inbox would send for this call. */
export function signCall(t: Pick<TestDirectory, 'publicUrl' | 'clock'>, inbox: { origin: string; key: Pick<SigningKey, 'privateJwk'> }, method: string, path: string, body: unknown, options: SignOptions = {}) {
  const text = options.rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
  const now = options.now ?? t.clock.now();
  const headers = signInstanceRequest({
    method,
    url: `${t.publicUrl}${path}`,
    ...(text === undefined ? {} : { body: text }),
    instance: options.instance ?? inbox.origin,
    privateJwk: (options.key ?? inbox.key).privateJwk,
    now: () => now,
    allowHttpInstance: true,
  });
  return { headers: { ...headers, ...(text === undefined ? {} : { 'content-type': 'application/json' }) } as Record<string, string>, body: text };
}

/** Sends a call signed as the inbox would sign it. */
export async function signed(t: TestDirectory, inbox: { origin: string; key: Pick<SigningKey, 'privateJwk'> }, method: string, path: string, body?: unknown, options: SignOptions = {}): Promise<ApiResponse> {
  const call = signCall(t, inbox, method, path, body, options);
  return t.request(method, path, { headers: call.headers, ...(call.body === undefined ? {} : { rawBody: call.body }) });
}

/** Registers the inbox (signed) and runs the verification job: a verified member. */
export async function registerVerified(t: TestDirectory, inbox: SignedInbox): Promise<void> {
  const r = await signed(t, inbox, 'POST', '/v1/instances', { domain: inbox.domain });
  if (r.status !== 202) throw new Error(`registration answered ${r.status}: ${JSON.stringify(r.body)}`);
  await t.directory.jobs.runDue();
  const status = await t.get(`/v1/instances/${encodeURIComponent(inbox.domain)}/status`);
  if (status.body.status !== 'verified') throw new Error(`not verified: ${JSON.stringify(status.body)}`);
}

export const pingPath = (domain: string) => `/v1/instances/${encodeURIComponent(domain)}/ping`;

/** A receipt id: 32 lowercase hex characters. */
export const receiptId = () => randomBytes(16).toString('hex');

/** Claims of a well-formed receipt from this inbox, with overrides. */
export function receiptClaims(inbox: Pick<SignedInbox, 'origin'>, nowMs: number, overrides: Partial<ReceiptClaims> & Record<string, unknown> = {}): ReceiptClaims {
  const iat = Math.floor(nowMs / 1000);
  return {
    ver: RECEIPT_CLAIMS_VERSION,
    iss: inbox.origin,
    sub: 'customer-a',
    itm: 'item-1',
    typ: 'booking',
    knd: 'confirmed',
    iat,
    nonce: receiptId(),
    due: iat + 3 * 86_400,
    end: iat + 3 * 86_400 + 3_600,
    evt: 'booking.confirmed',
    ...overrides,
  } as ReceiptClaims;
}

/** A receipt signed with the key (the inbox's by default), as compact JWS. */
export function signReceipt(key: SigningKey, claims: ReceiptClaims | Record<string, unknown>, header: Record<string, unknown> = {}): string {
  return signCompactJws({ alg: 'EdDSA', typ: RECEIPT_TYP, kid: key.kid, ...header }, claims as Record<string, unknown>, ed25519PrivateKey(key.privateJwk));
}

/** A customer agent's acknowledgement of a receipt. */
export function signAck(agent: SigningKey, receiptJws: string, iat: number, overrides: Record<string, unknown> = {}): string {
  const rcp = (JSON.parse(Buffer.from(receiptJws.split('.')[1] as string, 'base64url').toString('utf8')) as { nonce: string }).nonce;
  return signCompactJws(
    { alg: 'EdDSA', typ: RECEIPT_ACK_TYP, jwk: agent.publicJwk },
    { rcp, sha: receiptSha256(receiptJws), iat, ...overrides },
    ed25519PrivateKey(agent.privateJwk),
  );
}
