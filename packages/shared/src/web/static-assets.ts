/**
 * The pages' own static files (styles, scripts, icons), served under a name carrying a hash of their
 * bytes so they can be cached for a year and never go stale: a change makes a new name. Each is one
 * Buffer kept for the life of the process, so the compression hook compresses it once per coding.
 * A script not built yet (a development checkout before `npm run build`) is left out, and the pages
 * work without it: every form posts and every link navigates on its own (progressive enhancement).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { answerWithEtag } from '../http/etag.js';

export interface StaticAsset {
  /** The path pages link to: `<prefix>/<name>.<hash>.<ext>`. */
  path: string;
  bytes: Buffer;
  type: string;
  etag: string;
}

const TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  svg: 'image/svg+xml',
};

export function staticAsset(prefix: string, fileName: string, content: string | Buffer): StaticAsset {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const hash = createHash('sha256').update(bytes).digest('base64url').slice(0, 12);
  const dot = fileName.lastIndexOf('.');
  const ext = fileName.slice(dot + 1);
  return { path: `${prefix}/${fileName.slice(0, dot)}.${hash}.${ext}`, bytes, type: TYPES[ext] ?? 'application/octet-stream', etag: `"${hash}"` };
}

/** A built file as an asset, or null when it is not there (pages then go without it). */
export function builtAsset(prefix: string, fileName: string, file: URL): StaticAsset | null {
  try {
    return staticAsset(prefix, fileName, readFileSync(file));
  } catch {
    return null;
  }
}

export function serveAssets(app: FastifyInstance, assets: readonly (StaticAsset | null)[]): void {
  for (const asset of assets) {
    if (!asset) continue;
    app.get(asset.path, async (request, reply) => {
      reply.header('cache-control', 'public, max-age=31536000, immutable').header('x-content-type-options', 'nosniff');
      // The type goes in before sending: set after, it came too late whenever no onSend hook made the answer wait.
      return answerWithEtag(request, reply, asset.bytes, asset.etag, asset.type);
    });
  }
}
