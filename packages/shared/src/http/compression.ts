/**
 * Compression of answers (docs/http.md): JSON and text answers of at least 1 KiB are sent in brotli
 * (quality 5) or gzip (level 6) when the request's Accept-Encoding takes one, with
 * `Vary: Accept-Encoding` and the ETag of that coding (etag.ts). A body handed over as the same
 * Buffer again (the directory's cached answers) is compressed once per coding and kept with it.
 * Not compressed: 304 and 204 (no body), small answers, answers already encoded, streams, and the
 * MCP doors (they write to the socket themselves).
 *
 * Our own onSend hook rather than @fastify/compress: that plugin attaches itself to routes as they
 * are declared, so it must be loaded before any route, which a synchronous server builder cannot
 * do; and it leaves a strong ETag unchanged on a compressed answer. Install this hook after every
 * other onSend hook, so it sees the final bytes.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { encodedEtag, type ContentCoding } from './etag.js';

export interface CompressionOptions {
  /** Smaller answers are sent as they are (default 1024 bytes: below that, headers outweigh the saving). */
  thresholdBytes?: number;
  /** Brotli quality, 0–11 (default 5: measured on our answers at about gzip -6's CPU and 6–12% smaller; q4 was 1–3% larger; 11 costs ~50× the CPU). */
  brotliQuality?: number;
  /** gzip level, 1–9 (default 6). */
  gzipLevel?: number;
}

const COMPRESSIBLE = /^(?:application\/(?:[a-z0-9.-]+\+)?json|text\/(?!event-stream))/i;

/** The weight (q) an Accept-Encoding gives br and gzip: named, or through `*` when not named; 0 when refused or absent. */
function codingWeights(acceptEncoding: string | string[] | undefined): Record<ContentCoding, number> {
  const weights: Record<ContentCoding, number> = { br: 0, gzip: 0 };
  if (!acceptEncoding) return weights;
  const value = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding;
  const named = new Set<ContentCoding>();
  let starQ: number | undefined;
  for (const part of value.split(',')) {
    const [rawName, ...params] = part.trim().split(';');
    const name = (rawName ?? '').trim().toLowerCase();
    if (name === '') continue;
    let q = 1;
    for (const param of params) {
      const [k, v] = param.trim().split('=');
      if (k?.trim().toLowerCase() === 'q') q = Number(v);
    }
    if (!Number.isFinite(q)) q = 0;
    if (name === '*') starQ = q;
    const coding: ContentCoding | undefined = name === 'br' ? 'br' : name === 'gzip' || name === 'x-gzip' ? 'gzip' : undefined;
    if (coding) {
      named.add(coding);
      weights[coding] = Math.max(weights[coding], q);
    }
  }
  if (starQ !== undefined) for (const coding of ['br', 'gzip'] as const) if (!named.has(coding)) weights[coding] = starQ;
  return weights;
}

/** The coding an Accept-Encoding asks for: the highest q among br and gzip (br on a tie, `*` counts as br), or none. */
export function negotiateCoding(acceptEncoding: string | string[] | undefined): ContentCoding | undefined {
  const weights = codingWeights(acceptEncoding);
  if (weights.br > 0 && weights.br >= weights.gzip) return 'br';
  return weights.gzip > 0 ? 'gzip' : undefined;
}

/** Whether an Accept-Encoding takes this coding at all (q above 0), preferred or not. */
export function acceptsCoding(acceptEncoding: string | string[] | undefined, coding: ContentCoding): boolean {
  return codingWeights(acceptEncoding)[coding] > 0;
}

/** Adds a request header to the answer's Vary, once. */
export function appendVary(reply: FastifyReply, value: string): void {
  const existing = reply.getHeader('vary');
  const list = typeof existing === 'string' && existing !== '' ? existing.split(',').map((v) => v.trim()) : [];
  if (!list.some((v) => v.toLowerCase() === value.toLowerCase() || v === '*')) list.push(value);
  reply.header('vary', list.join(', '));
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export function installCompression(app: FastifyInstance, options: CompressionOptions = {}): void {
  const threshold = options.thresholdBytes ?? 1024;
  const brotliQuality = options.brotliQuality ?? 5;
  const gzipLevel = options.gzipLevel ?? 6;
  /** Compressed forms of Buffers served again (cached answers); they go when the Buffer does. */
  const kept = new WeakMap<Buffer, Partial<Record<ContentCoding, Buffer>>>();

  // Off the event loop (libuv's thread pool): an uncached answer's compression does not hold up other requests.
  const compress = (bytes: Buffer, coding: ContentCoding): Promise<Buffer> =>
    coding === 'br'
      ? brotliAsync(bytes, {
          params: { [zlibConstants.BROTLI_PARAM_QUALITY]: brotliQuality, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
        })
      : gzipAsync(bytes, { level: gzipLevel });

  const send = (reply: FastifyReply, payload: string | Buffer, size: number, coding: ContentCoding, compressed: Buffer): string | Buffer => {
    if (compressed.length >= size) return payload;
    reply.header('content-encoding', coding);
    const etag = reply.getHeader('etag');
    if (typeof etag === 'string') reply.header('etag', encodedEtag(etag, coding));
    return compressed;
  };

  // A callback hook: most answers pass through untouched, without a promise of their own.
  app.addHook('onSend', (request, reply, payload: unknown, done) => {
    const status = reply.statusCode;
    // A 304 says what its 200 would have said: a tagged answer varies with Accept-Encoding.
    if (status === 304 && reply.hasHeader('etag')) appendVary(reply, 'Accept-Encoding');
    if (payload === null || payload === undefined || status === 204 || status === 304 || status < 200) return done(null, payload);
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
    if (reply.getHeader('content-encoding') !== undefined) return done(null, payload);
    if (!COMPRESSIBLE.test(String(reply.getHeader('content-type') ?? ''))) return done(null, payload);
    const size = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
    if (size < threshold) return done(null, payload);
    // From here the answer depends on Accept-Encoding, whichever coding this request gets.
    appendVary(reply, 'Accept-Encoding');
    const coding = negotiateCoding(request.headers['accept-encoding']);
    if (coding === undefined) return done(null, payload);
    if (Buffer.isBuffer(payload)) {
      const forms = kept.get(payload) ?? {};
      const known = forms[coding];
      if (known !== undefined) return done(null, send(reply, payload, size, coding, known));
      compress(payload, coding).then(
        (compressed) => {
          forms[coding] = compressed;
          kept.set(payload, forms);
          done(null, send(reply, payload, size, coding, compressed));
        },
        (error: Error) => done(error),
      );
      return;
    }
    compress(Buffer.from(payload, 'utf8'), coding).then(
      (compressed) => done(null, send(reply, payload, size, coding, compressed)),
      (error: Error) => done(error),
    );
  });
}
