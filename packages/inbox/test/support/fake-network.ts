/**
 * A small directory network for tests (PROTOCOL-13): a real Fastify server on 127.0.0.1 answering
 * registration, pings, status and receipt publication the way the wire protocol says. Every signed
 * request is checked twice, independently: by the shared svc-instance/1 verifier (keys from the
 * inbox's own /.well-known/jwks.json, replays refused, the test clock) and by the
 * `http-message-signatures` library, which nobody here wrote. Receipts are verified against the same
 * keys and acknowledgements bound to them, as a network would. What it was sent is kept for the test.
 */
import { generateKeyPairSync } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { arraySource, checkpointText, consistencyProof, ed25519NoteSigner, encodeEntry, inclusionProof, leafHash, rawEd25519PublicKey, signNote, treeRoot, vkeyOf } from '@svc/verify';
import { createPublicKey } from 'node:crypto';
import { createVerifier, httpbis } from 'http-message-signatures';
import {
  MemoryReplayStore,
  bindAcknowledgement,
  createInstanceKeyCache,
  ed25519PublicKey,
  readAcknowledgement,
  receiptSha256,
  verifyInstanceRequest,
  verifyReceipt,
  type Ed25519PublicJwk,
  type InstanceVerification,
} from '@svc/shared';

export interface NetworkCall {
  method: string;
  path: string;
  body: any;
  /** What the shared verifier said. */
  shared: InstanceVerification | { ok: false; reason: 'unsigned' };
  /** What http-message-signatures said (null: the request was not signed). */
  library: boolean | null;
  keyid: string | null;
}

export interface StoredReceipt {
  jws: string;
  ack: string | null;
  claims: Record<string, unknown>;
}

type ReceiptMode = 'accept' | 'hold' | 'refuse' | 'fail' | 'rate_limit' | 'not_found';

export class FakeNetwork {
  readonly calls: NetworkCall[] = [];
  /** Receipts taken, by receipt id. */
  readonly receipts = new Map<string, StoredReceipt>();
  /** What GET …/status answers. */
  status: Record<string, unknown> = { status: 'pending', verified_at: null, listed: false };
  /** What a signed ping answers with (200); null answers 204 with nothing. */
  standing: Record<string, unknown> | null = { tier: 'building', score: 0.42, ranked: false, kept: 3, broken: 0, customers: 2, as_of: '2026-11-23T03:00:00.000Z' };
  rules = 7;
  /** Receipt intake: accept, hold (409), refuse (422 bad_receipt), fail (503), rate_limit (429 Retry-After), not_found (404). */
  receiptMode: ReceiptMode = 'accept';
  retryAfterSec = 120;
  /** Unsigned or badly signed requests are refused with 401 (set false to play a network that does not check). */
  checksSignatures = true;
  /** False: the network cannot find the inbox's keys (its manifest unreachable from there), so signatures fail as unknown_key. */
  knowsKeys = true;
  /** A status the ping answers with instead (a problem document), e.g. 500 or 409. */
  pingFailure: number | null = null;
  /** Answer pings 204 with this Svc-Signature header (a network that took the ping as unsigned). */
  pingSvcSignature: string | null = null;
  /**
   * An evidence log as a network publishes it (docs/verifiable-order.md), when true: every receipt
   * taken is an entry, except those in `unlogged` (a network that drops them); heads signed with the
   * network's key. False: the log routes answer 404 (a network that publishes none).
   */
  publishesLog = false;
  readonly unlogged = new Set<string>();
  /** Entries, as bytes; `forkedEntries`, when set, is the log shown instead (another log, signed as well). */
  readonly logEntries: string[] = [];
  forkedEntries: string[] | null = null;
  readonly #logKey = generateKeyPairSync('ed25519').privateKey;
  #app: FastifyInstance;
  #origin = '';
  readonly #replays = new MemoryReplayStore();
  readonly #keys: ReturnType<typeof createInstanceKeyCache>;

  constructor(
    /** Where the inbox under test serves its JWK Set (its publicBaseUrl is not where it listens). */
    readonly inboxAddress: () => string,
    readonly now: () => number,
  ) {
    this.#keys = createInstanceKeyCache({
      fetchKeys: async () => ((await (await fetch(`${this.inboxAddress()}/.well-known/jwks.json`)).json()) as { keys: unknown[] }).keys,
      now,
      minRefreshSeconds: 0,
    });
    this.#app = Fastify({ logger: false });
    // The raw body is what the signature's Content-Digest covers.
    this.#app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    this.#app.post('/v1/instances', async (request, reply) => {
      const call = await this.#check(request);
      if (call.refusal) return reply.code(401).type('application/problem+json').send(call.refusal);
      return reply.code(202).send({ domain: call.call.body?.domain, status: this.status.status ?? 'pending' });
    });
    this.#app.post<{ Params: { domain: string } }>('/v1/instances/:domain/ping', async (request, reply) => {
      const call = await this.#check(request);
      if (call.refusal) return reply.code(401).type('application/problem+json').send(call.refusal);
      if (this.status.status === 'unknown') return reply.code(404).type('application/problem+json').send({ code: 'not_found', detail: 'No such instance.' });
      if (this.pingFailure !== null) return reply.code(this.pingFailure).type('application/problem+json').send({ code: this.pingFailure === 409 ? 'wrong_state' : 'unavailable', status: this.pingFailure, detail: 'Not now.' });
      if (this.pingSvcSignature !== null) return reply.code(204).header('svc-signature', this.pingSvcSignature).send();
      if (this.standing === null || !this.checksSignatures) return reply.code(204).send();
      const acknowledged = [...this.receipts.values()].filter((r) => r.ack !== null).length;
      return reply.code(200).send({ ok: true, standing: this.standing, receipts: { accepted: this.receipts.size, acknowledged }, rules: this.rules });
    });
    this.#app.get('/v1/instances/:domain/status', async (request) => {
      this.calls.push({ method: 'GET', path: request.url, body: null, shared: { ok: false, reason: 'unsigned' }, library: null, keyid: null });
      return { domain: '127.0.0.1', ...this.status };
    });
    this.#logRoutes();
    this.#app.post('/v1/receipts', async (request, reply) => {
      const call = await this.#check(request);
      const problem = (status: number, code: string, detail: string) => reply.code(status).type('application/problem+json').send({ type: `${this.#origin}/problems/${code}`, title: code, status, code, detail });
      if (call.refusal) return reply.code(401).type('application/problem+json').send(call.refusal);
      if (this.receiptMode === 'hold') return problem(409, 'wrong_state', 'This instance is not verified yet.');
      if (this.receiptMode === 'not_found') return problem(404, 'not_found', 'No such instance.');
      if (this.receiptMode === 'fail') return problem(503, 'unavailable', 'Down for maintenance.');
      if (this.receiptMode === 'rate_limit') return reply.code(429).header('retry-after', String(this.retryAfterSec)).type('application/problem+json').send({ code: 'rate_limited', status: 429, detail: 'Slow down.' });
      if (this.receiptMode === 'refuse') return problem(422, 'bad_receipt', 'The receipt does not verify.');
      const { receipt, ack } = call.call.body as { receipt: string; ack?: string };
      const verified = await verifyReceipt(receipt, async (kid) => this.#keyFor(kid));
      if (!verified.ok) return problem(422, 'bad_receipt', verified.detail);
      if (ack !== undefined) {
        const read = readAcknowledgement(ack);
        const bound = read.ok ? bindAcknowledgement(read.claims, { id: verified.claims.nonce, sha256: receiptSha256(receipt) }, read.claims.iat) : read;
        if (!bound.ok) return problem(422, 'bad_acknowledgement', bound.detail);
      }
      const id = verified.claims.nonce;
      const before = this.receipts.get(id);
      if (!before && !this.unlogged.has(id)) this.logEntries.push(encodeEntry({ v: 1, kind: 'receipt', at: this.now(), jws: receipt }));
      this.receipts.set(id, { jws: receipt, ack: ack ?? before?.ack ?? null, claims: verified.claims as unknown as Record<string, unknown> });
      const state = (ack ?? before?.ack) ? 'acknowledged' : 'issued';
      return reply.code(before ? 200 : 201).send({ ok: true, receipt_id: id, state, duplicate: before !== undefined, counted: verified.claims.sbx !== 1 });
    });
  }

  #logRoutes(): void {
    const name = () => `${new URL(this.#origin).host}/v1/log`;
    const shown = () => this.forkedEntries ?? this.logEntries;
    const source = () => arraySource(shown().map((e) => leafHash(e)));
    const absent = (reply: { code(n: number): { send(b: unknown): unknown } }) => reply.code(404).send({ code: 'not_found', status: 404 });
    this.#app.get('/v1/log/key', async (_request, reply) => (this.publishesLog ? { vkey: vkeyOf(name(), rawEd25519PublicKey(createPublicKey(this.#logKey))) } : absent(reply)));
    this.#app.get('/v1/log/checkpoint', async (_request, reply) => {
      if (!this.publishesLog) return absent(reply);
      const entries = shown();
      const note = signNote(checkpointText({ origin: name(), size: entries.length, root: treeRoot(source(), entries.length), extensions: [] }), [ed25519NoteSigner(name(), this.#logKey)]);
      return reply.type('text/plain').send(note);
    });
    this.#app.get<{ Querystring: { iss: string; receipt_id: string } }>('/v1/log/lookup', async (request, reply) => {
      const index = shown().findIndex((e) => this.receipts.get(request.query.receipt_id)?.jws !== undefined && e.includes(this.receipts.get(request.query.receipt_id)?.jws as string));
      if (!this.publishesLog || index < 0) return absent(reply);
      return { receipt: { index, at: new Date(this.now()).toISOString(), leaf_hash: leafHash(shown()[index] as string).toString('base64'), entry: shown()[index] }, acknowledgement: null };
    });
    this.#app.get<{ Querystring: { index: string; size: string } }>('/v1/log/proof/inclusion', async (request) => ({
      proof: inclusionProof(source(), Number(request.query.index), Number(request.query.size)).map((h) => h.toString('base64')),
    }));
    this.#app.get<{ Querystring: { from: string; to: string } }>('/v1/log/proof/consistency', async (request) => ({
      proof: consistencyProof(source(), Number(request.query.from), Number(request.query.to)).map((h) => h.toString('base64')),
    }));
  }

  async start(): Promise<string> {
    return this.listenOn(0);
  }

  /** Listens on a given port (a network coming back where it was). */
  async listenOn(port: number): Promise<string> {
    const address = await this.#app.listen({ host: '127.0.0.1', port });
    this.#origin = address;
    return address;
  }

  get origin(): string {
    return this.#origin;
  }

  async close(): Promise<void> {
    await this.#app.close();
  }

  /** The calls to a path, as "METHOD path". */
  paths(): string[] {
    return this.calls.map((c) => `${c.method} ${c.path}`);
  }

  async #keyFor(kid: string): Promise<Ed25519PublicJwk | null> {
    if (!this.knowsKeys) return null;
    return (await this.#keys.lookup({ keyid: kid, instance: 'inbox' })) ?? null;
  }

  async #check(request: FastifyRequest): Promise<{ call: NetworkCall; refusal: Record<string, unknown> | null }> {
    const raw = typeof request.body === 'string' ? request.body : '';
    const url = `${this.#origin}${request.url}`;
    const headers = request.headers as Record<string, string>;
    const signed = headers['signature-input'] !== undefined;
    const shared: NetworkCall['shared'] = signed
      ? await verifyInstanceRequest(
          { method: request.method, url, headers, body: raw },
          { lookupKey: ({ keyid }) => this.#keyFor(keyid), replayStore: this.#replays, now: this.now, allowHttpInstance: true },
        )
      : { ok: false, reason: 'unsigned' };
    let library: boolean | null = null;
    if (signed) {
      // The library checks expiry against the real clock; the inbox signs on the test clock, whose
      // window the shared verifier checks, so the library is asked about the signature alone.
      library = await httpbis
        .verifyMessage(
          {
            keyLookup: async (params: { keyid?: string }) => {
              const jwk = params.keyid ? await this.#keyFor(params.keyid) : null;
              return jwk ? { id: params.keyid as string, algs: ['ed25519'], verify: createVerifier(ed25519PublicKey(jwk), 'ed25519') } : null;
            },
            requiredFields: ['@method', '@authority', '@path', 'svc-instance', ...(raw.length > 0 ? ['content-digest'] : [])],
            tolerance: 10 * 365 * 86_400,
          },
          { method: request.method, url, headers },
        )
        .catch(() => false);
    }
    const call: NetworkCall = {
      method: request.method,
      path: request.url,
      body: raw.length > 0 ? JSON.parse(raw) : null,
      shared,
      library,
      keyid: 'keyid' in shared && typeof shared.keyid === 'string' ? shared.keyid : null,
    };
    this.calls.push(call);
    if (!this.checksSignatures || shared.ok) return { call, refusal: null };
    const reason = shared.reason;
    return {
      call,
      refusal: { type: `${this.#origin}/problems/${reason === 'replayed' ? 'replayed_signature' : 'unauthorized'}`, code: reason === 'replayed' ? 'replayed_signature' : 'unauthorized', status: 401, detail: 'The signature did not verify.', signature_error: reason },
    };
  }
}
