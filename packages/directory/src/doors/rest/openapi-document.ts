/**
 * What the directory's /openapi.json says beyond the operation table: licence, contact, tags, and
 * that no operation needs authentication (directory spec §5). See docs/openapi.md.
 */
import { LOG_PATHS } from './log-routes.js';
import { PROJECT_LICENSE, type OpenApiInfo, type OpenApiTag, type OperationMeta } from '@svc/shared';

const TAGS: readonly (OpenApiTag & { paths: readonly RegExp[] })[] = [
  { name: 'Search', description: 'Businesses in the published hourly order, and one business.', paths: [/^\/v1\/businesses/] },
  { name: 'Vocabulary', description: 'Categories, place categories and attributes the search filters by.', paths: [/^\/v1\/(categories|attributes)$/, /^\/c\//] },
  { name: 'Rules and statistics', description: 'The published ranking rules and the statistics of the network.', paths: [/^\/v1\/(ranking|stats)$/] },
  { name: 'Agentic check', description: 'The agentic score: its published rules, check results of sites, asking for a check, and the leaderboard. The score never changes the search order.', paths: [/^\/v1\/score-rules$/, /^\/b\//, /^\/check/, /^\/leaderboard/] },
  { name: 'Instances', description: 'Registration of inboxes with the network, their pings and status.', paths: [/^\/v1\/instances/] },
  { name: 'Receipts', description: 'Receipts an inbox signed for the promises it made and kept, published to the network.', paths: [/^\/v1\/receipts$/] },
  {
    name: 'Verifiable order',
    description:
      'The evidence log every reputation is computed from (an append-only Merkle log: signed heads, tiles, inclusion and consistency proofs) and each hour\'s signed statement of its order, so anyone can recompute both (docs/verifiable-order.md; the verifier: npx @svc/verify).',
    paths: [/^\/v1\/log\//, /^\/v1\/orders\//],
  },
];

export function directoryTagOf(op: Pick<OperationMeta, 'name' | 'http'>): string {
  const tag = TAGS.find((t) => t.paths.some((p) => p.test(op.http.path)));
  if (!tag) throw new Error(`no OpenAPI tag covers ${op.name} at ${op.http.path}; add one in openapi-document.ts`);
  return tag.name;
}

export function directoryOpenApi(baseUrl: string): Omit<OpenApiInfo, 'version'> {
  return {
    title: 'Directory network',
    description:
      'Public, read-only search of businesses for AI agents, in one published order that cannot be bought. No key and no sign-in: every caller gets the same answer. Reads carry an ETag and answer 304 to If-None-Match. Refusals are RFC 9457 problem documents. The calls an inbox makes (registration, its hourly ping, publishing receipts) are signed by the inbox with HTTP Message Signatures (RFC 9421, Ed25519, profile svc-instance/1, a key of its manifest\'s receipt_keys); they carry no other credential.',
    serverUrl: baseUrl,
    license: PROJECT_LICENSE,
    contact: { name: 'Operator of this directory network', url: `${baseUrl}/v1/stats` },
    tags: TAGS.map(({ name, description }) => ({ name, description })),
    tagOf: directoryTagOf,
    security: { owner: [], item: [] },
    idempotentWrites: false,
    inputProblem: 'bad_request',
    rateLimits: 'The network may limit any caller (limits not fixed yet); wait Retry-After seconds.',
    extraPaths: LOG_PATHS,
  };
}
