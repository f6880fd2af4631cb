/**
 * Entity tags and conditional reads (docs/http.md). A tag names the exact bytes of an answer; an
 * answer sent compressed carries the tag with the encoding appended (`"abc-br"`, `"abc-gzip"`), so
 * two byte sequences never share one strong tag. If-None-Match is compared weakly (RFC 9110 §13.1.2)
 * against every encoding of the current answer: the content is what is compared, not its coding.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Content codings an answer may be sent in, besides identity. */
export type ContentCoding = 'br' | 'gzip';

/** A strong tag of the bytes (SHA-1, base64url: 27 characters; a tag only has to differ when the bytes do). */
export function etagOfText(text: string | Uint8Array): string {
  return `"${createHash('sha1').update(text).digest('base64url')}"`;
}

/** The tag of the same content sent in a coding; weak tags already cover every coding and are kept. */
export function encodedEtag(etag: string, coding: ContentCoding): string {
  if (etag.startsWith('W/') || !etag.endsWith('"')) return etag;
  return `${etag.slice(0, -1)}-${coding}"`;
}

function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/**
 * The tag in If-None-Match that still holds for an answer tagged `etag` (in any coding), or
 * undefined. `*` holds for any answer. A 304 sends back the tag the client holds.
 */
export function matchingTag(request: FastifyRequest, etag: string): string | undefined {
  const header = request.headers['if-none-match'];
  if (!header) return undefined;
  const value = Array.isArray(header) ? header.join(',') : header;
  const current = opaque(etag);
  const variants = new Set([current, opaque(encodedEtag(current, 'br')), opaque(encodedEtag(current, 'gzip'))]);
  for (const raw of value.split(',')) {
    const tag = raw.trim();
    if (tag === '*') return etag;
    if (variants.has(opaque(tag))) return tag.startsWith('W/') ? tag.slice(2) : tag;
  }
  return undefined;
}

/**
 * Sends a JSON text (or its bytes, kept by the caller; or bytes of `contentType`) with its ETag, or
 * 304 with no body when If-None-Match still holds. Headers already set (Cache-Control) go with
 * either. Nothing can be set on the reply after this: when every onSend hook is a callback, the
 * answer is written before `send` returns.
 */
export function answerWithEtag(
  request: FastifyRequest,
  reply: FastifyReply,
  body: string | Buffer,
  etag = etagOfText(body),
  contentType = 'application/json; charset=utf-8',
): FastifyReply {
  const held = matchingTag(request, etag);
  if (held !== undefined) return reply.code(304).header('etag', held).send();
  return reply.header('etag', etag).type(contentType).send(body);
}
