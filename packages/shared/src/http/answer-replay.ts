/**
 * Answers replayed in front of the framework (docs/http.md "Answers replayed"). A public read kept in
 * memory (the inbox's services, products, profile and availability) is the same bytes for everyone
 * until what it was built from changes; yet every request for it went through Fastify's request and
 * reply objects, every hook, the route's validation and the operation runner, about twice what a bare
 * Fastify route costs. So the whole answer Fastify sent (status, headers, body) is kept and written
 * again for the next request that asks the same thing, straight from the HTTP server's request
 * event, while the route's condition (`holds`) still says true.
 *
 * What keeps it exact:
 * - Only answers a route offers (`offerReplay`) are kept: 200s to a GET, recorded after every other
 *   hook has run (compression included), with every header Fastify wrote but the rate-limit ones.
 * - Kept per URL as sent and, as a shared HTTP cache keys them (RFC 9111 §4.1), per value of each
 *   request header the answer's Vary names (Accept-Encoding: each coding has its own bytes).
 * - Only a request that carries nothing a hook or route would act on is replayed, or recorded:
 *   no credentials, cookies, item tokens, passes or signatures, no conditional or range headers, no
 *   Origin, no body, no forwarding headers. Anything else goes to Fastify as before.
 * - The burst budgets the recorded request was counted against count the replayed one alike
 *   (rate-limits.ts), and its RateLimit headers are its own; one over its budget goes to Fastify,
 *   already counted, for the usual 429.
 * - The request log line is the framework's line (request-log.ts), with the same id sequence.
 * - Nothing is replayed while the server closes, nor when a proxy is trusted (the client's address
 *   would then be the framework's to work out).
 * - An answer for one client (`offerPrivately`: an owner's page, for its session's cookie) is kept
 *   apart, under a hash of the request's whole Cookie header, and replayed only to a request with the
 *   very same Cookie header and nothing else a hook acts on. Its `holds` is the route's own check of
 *   the session and the page, made again at each replay; its body is made anew at each replay (fresh
 *   form keys), in the coding it first went out in.
 * - It sits in front of the request listener of the server Fastify made, which stays as Fastify
 *   made it (timeouts, keep-alive, closing); extra servers Fastify binds (a host of `localhost`
 *   on two addresses) go straight to Fastify.
 */
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sha256Text } from '../hashing.js';
import { BoundedKeep } from '../memory/bounded-keep.js';
import { budgetsCounted, noteChargedBefore, type BurstLimits, type RateBudget } from './rate-limits.js';
import type { RequestLineWriter } from './request-log.js';

/** Request headers that some hook or route acts on: a request carrying any of them is never replayed. */
const ACTED_ON = [
  'authorization',
  'cookie',
  'x-access-token',
  'svc-pass',
  'svc-agent-key',
  'signature',
  'signature-input',
  'signature-agent',
  'origin',
  'access-control-request-method',
  'if-none-match',
  'if-modified-since',
  'if-match',
  'if-unmodified-since',
  'if-range',
  'range',
  'content-length',
  'transfer-encoding',
  'expect',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
] as const;

/** Headers of a recorded answer that are the request's own, not the answer's. */
const NOT_KEPT = new Set(['ratelimit', 'ratelimit-policy', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

/** The different variants (Vary values) kept of one URL at most. */
const MAX_VARIANTS = 8;
/** Answers kept for one client each, at most, and their bytes (offerPrivately). */
const MAX_PRIVATE_ENTRIES = 256;
const MAX_PRIVATE_BYTES = 8 * 1024 * 1024;

type Headers = Record<string, string | number | string[]>;

interface Variant {
  /** The answer's headers; when it showed rate-limit headers, those before them and those after. */
  headers: Headers;
  afterLimits: Headers | null;
  /** The body as sent; an answer made anew at each serving (`make`) has a body of this length each time. */
  body: Buffer;
  make: (() => Buffer | null) | null;
  holds: () => boolean;
  budgets: readonly RateBudget[];
}

/** An answer kept for the one client whose cookies the request carried (offerPrivately). */
export interface PrivateOffer {
  /** Whether the answer still holds for this client: checked again at each replay. */
  holds: () => boolean;
  /** When each serving's body is made anew (fresh form keys); absent, the body is replayed as sent. */
  remake?: {
    /** The Content-Encoding of what `body` makes (undefined: none); the answer is kept only when the hooks left it so. */
    coding: string | undefined;
    /** A serving's body, as long as the first; null when it cannot be made now. */
    body: () => Buffer | null;
  };
}

interface UnsentAnswer {
  request: IncomingMessage;
  response: ServerResponse;
  headers: Headers;
  body: Buffer;
  started: number;
}

interface KeptUrl {
  /** The request headers the answers vary by (lower case), from their Vary. */
  vary: readonly string[];
  variants: Map<string, Variant>;
}

export interface AnswerReplayOptions {
  /** The request log's writer, or null when requests are not logged. */
  lines: RequestLineWriter | null;
  /** The id generator the framework's requests use too (one sequence in the log). */
  nextRequestId: () => string;
  /** Answers kept at most, and their bytes. */
  maxEntries?: number;
  maxBytes?: number;
}

/**
 * Whether a request could be answered by a kept answer: nothing in it that a hook or route acts on;
 * for an answer kept for one client, its cookies and nothing else.
 */
function replayable(request: IncomingMessage, forOneClient = false): boolean {
  if (request.method !== 'GET') return false;
  const headers = request.headers;
  if (forOneClient && headers.cookie === undefined) return false;
  for (const name of ACTED_ON) if (headers[name] !== undefined && !(forOneClient && name === 'cookie')) return false;
  return true;
}

/** Where an answer for one client is kept: its address and a hash of the very Cookie header it came with. */
function privateKey(url: string, cookie: string): string {
  return `${url}\n${sha256Text(cookie, 'base64')}`;
}

function variantKey(request: IncomingMessage, vary: readonly string[]): string {
  if (vary.length === 0) return '';
  if (vary.length === 1) return String(request.headers[vary[0] as string] ?? '');
  return vary.map((name) => String(request.headers[name] ?? '')).join('\n');
}

function varyNames(header: unknown): string[] | null {
  if (header === undefined) return [];
  const names = String(header)
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  // `Vary: *` can never be matched by a stored answer.
  return names.includes('*') ? null : names.sort();
}

export class AnswerReplay {
  readonly #lines: RequestLineWriter | null;
  readonly #nextRequestId: () => string;
  readonly #kept: BoundedKeep<KeptUrl>;
  readonly #keptPrivately: BoundedKeep<KeptUrl>;
  readonly #offered = new WeakMap<FastifyRequest, () => boolean>();
  readonly #offeredPrivately = new WeakMap<FastifyRequest, PrivateOffer>();
  #limits: BurstLimits | null = null;
  #closing = false;
  #replayed = 0;
  /** Answers decided on and not yet written (#sendUnsent). */
  #unsent: UnsentAnswer[] = [];

  constructor(options: AnswerReplayOptions) {
    this.#lines = options.lines;
    this.#nextRequestId = options.nextRequestId;
    const sizeOf = (kept: KeptUrl): number => {
      let size = 0;
      for (const variant of kept.variants.values()) size += variant.body.length;
      return size;
    };
    this.#kept = new BoundedKeep<KeptUrl>({ maxEntries: options.maxEntries ?? 512, maxSize: options.maxBytes ?? 16 * 1024 * 1024, sizeOf });
    this.#keptPrivately = new BoundedKeep<KeptUrl>({ maxEntries: MAX_PRIVATE_ENTRIES, maxSize: MAX_PRIVATE_BYTES, sizeOf });
  }

  /**
   * Puts the replay in front of the server's request listener (Fastify's): a request a kept answer
   * holds for is answered here, any other goes on to Fastify. Fastify's server stays as Fastify made
   * it (timeouts, keep-alive, closing).
   */
  attach(server: Server): void {
    const listeners = server.listeners('request') as RequestListener[];
    if (listeners.length !== 1) throw new Error(`answer replay: expected the framework's one request listener, found ${listeners.length}`);
    const handler = listeners[0] as RequestListener;
    server.removeListener('request', handler);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      if (!this.#answer(request, response)) handler(request, response);
    });
  }

  /** How many requests were answered here so far. */
  get replayed(): number {
    return this.#replayed;
  }

  /** The burst budgets replayed requests count against (the service's, once installed). */
  useLimits(limits: BurstLimits | null): void {
    this.#limits = limits;
  }

  /** A route's answer to this request may be kept and replayed while `holds` says true. */
  offer(request: FastifyRequest, holds: () => boolean): void {
    this.#offered.set(request, holds);
  }

  /**
   * A route's answer to this request, meant for this client alone, may be kept and replayed to the
   * same Cookie header while `offer.holds` says true, its body made anew each time.
   */
  offerPrivately(request: FastifyRequest, offer: PrivateOffer): void {
    this.#offeredPrivately.set(request, offer);
  }

  /** Records offered answers as sent (installAnswerReplay). */
  install(app: FastifyInstance): void {
    app.addHook('preClose', (done) => {
      this.#closing = true;
      done();
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      const holds = this.#offered.get(request);
      if (holds !== undefined && reply.statusCode === 200 && replayable(request.raw) && (Buffer.isBuffer(payload) || typeof payload === 'string')) {
        this.#record(request, reply, Buffer.isBuffer(payload) ? payload : Buffer.from(payload), holds, null, this.#kept, request.raw.url as string);
      }
      const privately = this.#offeredPrivately.get(request);
      if (
        privately !== undefined &&
        reply.statusCode === 200 &&
        replayable(request.raw, true) &&
        Buffer.isBuffer(payload) &&
        (privately.remake === undefined || reply.getHeader('content-encoding') === privately.remake.coding)
      ) {
        this.#record(request, reply, payload, privately.holds, privately.remake?.body ?? null, this.#keptPrivately, privateKey(request.raw.url as string, request.headers.cookie as string));
      }
      done(null, payload);
    });
  }

  #record(request: FastifyRequest, reply: FastifyReply, body: Buffer, holds: () => boolean, make: (() => Buffer | null) | null, keep: BoundedKeep<KeptUrl>, url: string): void {
    const sent = reply.getHeaders();
    if (sent['set-cookie'] !== undefined) return;
    const vary = varyNames(sent.vary);
    if (vary === null) return;
    // Kept in the order sent; the request's own RateLimit headers go back where they were.
    const headers: Headers = {};
    let afterLimits: Headers | null = null;
    for (const [name, value] of Object.entries(sent)) {
      if (name === 'ratelimit-policy') afterLimits ??= {};
      if (value === undefined || NOT_KEPT.has(name)) continue;
      (afterLimits ?? headers)[name] = value;
    }
    (afterLimits ?? headers)['content-length'] = body.length;
    const known = keep.get(url);
    const kept: KeptUrl = known && known.vary.join(',') === vary.join(',') ? known : { vary, variants: new Map() };
    const key = variantKey(request.raw, vary);
    kept.variants.delete(key);
    if (kept.variants.size >= MAX_VARIANTS) kept.variants.delete(kept.variants.keys().next().value as string);
    kept.variants.set(key, { headers, afterLimits, body, make, holds, budgets: budgetsCounted(request.raw) });
    // Set again: its size is counted anew.
    keep.set(url, kept);
  }

  #answer(request: IncomingMessage, response: ServerResponse): boolean {
    if (this.#closing || request.method !== 'GET') return false;
    const cookie = request.headers.cookie;
    // A request with cookies gets only an answer kept for those very cookies.
    if (cookie !== undefined && this.#keptPrivately.count === 0) return false;
    const kept = cookie === undefined ? this.#kept.get(request.url as string) : this.#keptPrivately.get(privateKey(request.url as string, cookie));
    if (!kept || !replayable(request, cookie !== undefined)) return false;
    const key = variantKey(request, kept.vary);
    const variant = kept.variants.get(key);
    if (!variant) return false;
    const started = performance.now();
    let holds = false;
    try {
      holds = variant.holds();
    } catch {
      holds = false;
    }
    if (!holds) {
      kept.variants.delete(key);
      return false;
    }
    let body = variant.body;
    if (variant.make) {
      let made: Buffer | null = null;
      try {
        made = variant.make();
      } catch {
        made = null;
      }
      // Its Content-Length was recorded: a body of another length goes to the framework.
      if (!made || made.length !== variant.body.length) return false;
      body = made;
    }
    let headers = variant.headers;
    if (variant.budgets.length > 0 && this.#limits) {
      const charge = this.#limits.chargeAnonymous(request.socket.remoteAddress ?? '', variant.budgets);
      if (charge.refusal) {
        // Fastify answers the 429 as always, without counting the request again.
        noteChargedBefore(request, charge);
        return false;
      }
      if (charge.headers) headers = { ...headers, ...charge.headers, ...variant.afterLimits };
    }
    if (headers === variant.headers && variant.afterLimits) headers = { ...headers, ...variant.afterLimits };
    this.#replayed++;
    if (this.#unsent.length === 0) setImmediate(this.#sendUnsent);
    this.#unsent.push({ request, response, headers, body, started });
    return true;
  }

  /**
   * Writes the answers replayed since the last call, one after another. They wait for the end of the
   * event loop's poll phase (a setImmediate) so that the answers to requests read in one pass go out
   * back to back: a socket write that makes a waiting reader runnable (a proxy or client on the same
   * host) costs the writer that reader's wake-up, and writes close together wake it once.
   */
  readonly #sendUnsent = (): void => {
    const unsent = this.#unsent;
    this.#unsent = [];
    for (const { request, response, headers, body, started } of unsent) {
      try {
        response.writeHead(200, headers);
        response.end(body);
      } catch (error) {
        // This client's connection ends; the answers after it in the batch are still written.
        response.destroy(error as Error);
        continue;
      }
      this.#lines?.completedRaw(this.#nextRequestId(), request, 200, performance.now() - started);
    }
  };
}

const replays = new WeakMap<FastifyInstance, AnswerReplay>();

/** The replay of a service's app (createServiceApp made it), or undefined when it replays nothing. */
export function answerReplayOf(app: FastifyInstance): AnswerReplay | undefined {
  return replays.get(app);
}

export function registerAnswerReplay(app: FastifyInstance, replay: AnswerReplay): void {
  replays.set(app, replay);
}

/**
 * Starts recording the answers routes offer, counted against the service's burst budgets (`limits`,
 * what installRateLimits made; null when limits are off). Call once every other onSend hook is
 * installed: the answer kept is what those hooks made of it (compressed, tagged).
 */
export function installAnswerReplay(app: FastifyInstance, limits: BurstLimits | null): void {
  const replay = answerReplayOf(app);
  if (!replay) return;
  replay.useLimits(limits);
  replay.install(app);
}

/** The request ids Fastify gives by default (`req-1`, `req-2`, … in base 36), as one sequence for both paths. */
export function requestIdSequence(): () => string {
  let next = 0;
  return () => {
    next = (next + 1) & 0x7fffffff;
    return `req-${next.toString(36)}`;
  };
}
