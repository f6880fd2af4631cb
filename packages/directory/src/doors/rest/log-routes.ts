/**
 * The evidence log's signed head and its tiles, as transparency logs serve them (C2SP
 * tlog-checkpoint and tlog-tiles): GET /v1/log/checkpoint (a signed note, text) and
 * GET /v1/log/tile/<L>/<N>[.p/<W>] and /v1/log/tile/entries/<N>[.p/<W>] (bytes). A tile path always
 * names the same bytes, so tiles are cacheable forever; the head changes, so it is kept a minute.
 * Outside the operation table (they are not JSON); their OpenAPI entries are LOG_PATHS.
 */
import type { FastifyInstance } from 'fastify';
import { Problem } from '@svc/shared';
import { TILE_WIDTH, leavesPerHash, parseTilePath } from '@svc/verify';
import type { VerifiableOrder } from '../../domain/evidence/verifiable-order.js';
import type { DirectoryStore } from '../../store/store.js';
import { etagOf } from './etag.js';

export const LOG_ROUTES = [
  { method: 'GET' as const, path: '/v1/log/checkpoint' },
  { method: 'GET' as const, path: '/v1/log/tile/{tile}' },
];

const IMMUTABLE = 'public, max-age=31536000, immutable';

export function installLogRoutes(app: FastifyInstance, deps: { order: VerifiableOrder; store: DirectoryStore }): void {
  app.get('/v1/log/checkpoint', async (request, reply) => {
    const head = await deps.order.latestHead();
    const etag = etagOf(Buffer.from(head.note, 'utf8'));
    reply.header('cache-control', 'public, max-age=60').header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type('text/plain; charset=utf-8').send(head.note);
  });

  app.get('/v1/log/tile/*', async (request, reply) => {
    const rest = (request.params as { '*': string })['*'];
    const tile = parseTilePath(rest);
    if (!tile) {
      throw new Problem('bad_request', 'Not a tile path: tile/<level>/<index> or tile/entries/<index>, the index in groups of three digits (x001/234), with .p/<width> for a partial tile.', {
        fields: [{ path: 'tile', problem: 'invalid', message: `${rest.slice(0, 80)} is not a tile path.` }],
      });
    }
    const size = await deps.store.evidence.size();
    const span = tile.level === 'entries' ? 1 : leavesPerHash(tile.level);
    const available = Math.floor(size / span) - tile.index * TILE_WIDTH;
    if (tile.level !== 'entries' && tile.level > 6) throw new Problem('bad_request', 'A level of hashes is at most 6.');
    if (available < tile.width) {
      throw new Problem('not_found', `The log has ${size} entries: ${tile.width === TILE_WIDTH ? 'that tile is not whole yet' : `that partial tile does not have ${tile.width} ${tile.level === 'entries' ? 'entries' : 'hashes'}`}.`);
    }
    const bytes = await deps.order.tree.tile(tile);
    reply.header('cache-control', IMMUTABLE).header('etag', etagOf(bytes));
    return reply.type('application/octet-stream').send(bytes);
  });
}

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } });

/** OpenAPI path items of the two routes. */
export const LOG_PATHS: Record<string, Record<string, unknown>> = {
  '/v1/log/checkpoint': {
    get: {
      operationId: 'get_log_checkpoint',
      summary: 'The evidence log\'s signed head',
      description:
        'A C2SP tlog-checkpoint signed note: the log\'s origin, its size and root hash (RFC 9162, base64), and the network\'s signature (its key at GET /v1/log/key). Signed anew at least every five minutes while the log grows, and at every hour\'s statement.',
      tags: ['Verifiable order'],
      responses: {
        '200': { description: 'The signed head.', headers: { ETag: { $ref: '#/components/headers/ETag' } }, content: { 'text/plain': { schema: { type: 'string' } } } },
        '304': { description: 'The head sent in If-None-Match is still the latest.' },
        '404': problem('No evidence log is published at this network (this directory always publishes one; a client of other networks meets it).'),
      },
    },
  },
  '/v1/log/tile/{tile}': {
    get: {
      operationId: 'get_log_tile',
      summary: 'A tile of the evidence log',
      description:
        'C2SP tlog-tiles: `<L>/<N>` is tile N of level L (the roots of 256 subtrees of 256^L entries each, 32 bytes apiece); `entries/<N>` the entries themselves, each a big-endian uint16 length and its bytes. N is written in groups of three digits, all but the last prefixed with x (x001/234); a partial tile adds .p/<width>. Every tile path names the same bytes forever.',
      tags: ['Verifiable order'],
      parameters: [{ name: 'tile', in: 'path', required: true, description: 'The rest of the path after tile/, slashes included.', schema: { type: 'string' } }],
      responses: {
        '200': { description: 'The tile\'s bytes.', headers: { ETag: { $ref: '#/components/headers/ETag' } }, content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } },
        '400': problem('Not a tile path.'),
        '404': problem('The log is not that large yet.'),
      },
    },
  },
};
