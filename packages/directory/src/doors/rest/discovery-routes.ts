/**
 * The directory's own discovery documents: robots.txt (open to every crawler, with our own
 * Content-Signal: search and AI input yes, AI training no), an MCP server card at
 * /.well-known/mcp/server-card.json, /.well-known/ai-catalog.json, and /llms.txt (what the
 * directory is, its doors, and what its crawler does, which the crawler's user agent points to).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AnyOperation } from '@svc/shared';
import { CRAWLER_TOKEN } from '../../checks/site-fetcher.js';

export const DISCOVERY_ROUTES = [
  { method: 'GET', path: '/robots.txt' },
  { method: 'GET', path: '/llms.txt' },
  { method: 'GET', path: '/.well-known/mcp/server-card.json' },
  { method: 'GET', path: '/.well-known/ai-catalog.json' },
] as const;

export const DIRECTORY_CONTENT_SIGNAL = 'search=yes, ai-input=yes, ai-train=no';

export function robotsTxt(baseUrl: string): string {
  return [
    '# The directory network: public reads for people\'s AI agents.',
    'User-agent: *',
    `Content-Signal: ${DIRECTORY_CONTENT_SIGNAL}`,
    'Allow: /',
    // Pages about businesses the directory found are not to be indexed (they also say noindex).
    'Disallow: /about/found/',
    '',
    `# ${baseUrl}/llms.txt describes the directory, its doors and its crawler (${CRAWLER_TOKEN}).`,
    '',
  ].join('\n');
}

export function llmsTxt(baseUrl: string): string {
  return `# Directory network

> A public directory of businesses for people's AI agents, in one published order that cannot be bought. Every read is public: no key, no sign-in. It takes no bookings, orders or payments itself: those go to each business's own doors.

## Doors

- [MCP server](${baseUrl}/mcp): every public read as a tool (search_businesses, get_business, list_categories, list_attributes, get_ranking_rules, get_score_rules, get_check_result, get_leaderboard, get_stats) and check_business. Stateless Streamable HTTP; business-written text is fenced as untrusted data.
- [OpenAPI 3.1](${baseUrl}/openapi.json): the same operations over REST.
- [MCP server card](${baseUrl}/.well-known/mcp/server-card.json)

## Reads

- [Search](${baseUrl}/v1/businesses?q=cafe): businesses in the hourly order of the [ranking rules](${baseUrl}/v1/ranking).
- [Categories](${baseUrl}/v1/categories), [attributes](${baseUrl}/v1/attributes), [statistics](${baseUrl}/v1/stats).
- [Score rules](${baseUrl}/v1/score-rules): how far an agent can go with a business through the doors it publishes. The score never changes the search order.
- [Leaderboard](${baseUrl}/leaderboard.json), and a site's check result at ${baseUrl}/b/{domain}.json.

## The crawler (${CRAWLER_TOKEN})

The directory checks a business's site when asked (POST ${baseUrl}/check, or the MCP tool check_business) and again on a schedule. Its user agent names itself \`${CRAWLER_TOKEN}/1.0\` with a link to this page.

- It reads robots.txt first and obeys the group for \`${CRAWLER_TOKEN}\` (else \`*\`), including Crawl-delay. \`Disallow: /\` for ${CRAWLER_TOKEN} keeps it out entirely.
- A site whose robots.txt has a Content-Signal with ai-input=no or ai-train=no (or a Content-Usage saying no to AI training or use) is checked for its agent doors only: nothing it publishes is kept, it is never listed or named on a leaderboard, and its result is not to be indexed.
- It only reads: home page, well-known documents (agent cards, manifests, OpenAPI, UCP, ACP, llms.txt), and an MCP server's initialize and tools/list. It never calls a tool, sends a form, signs up, logs in or buys. It runs no JavaScript.
- Per site: at most 40 requests, 4 MiB and 45 seconds per check, one request at a time; redirects only within the site. Only public addresses are reached.
- An owner hides its result by publishing /.well-known/svc-check.json with {"result": "hidden"} (then POST ${baseUrl}/check/visibility with the domain for it to apply at once).
`;
}

export function installDiscoveryDocuments(app: FastifyInstance, options: { baseUrl: string; softwareVersion: string; operations: readonly Pick<AnyOperation<never>, 'kind' | 'name' | 'title'>[] }): void {
  const { baseUrl } = options;
  const robots = robotsTxt(baseUrl);
  const llms = llmsTxt(baseUrl);
  const tools = options.operations.filter((op) => op.kind === 'read' || op.name === 'check_business').map((op) => ({ name: op.name, title: op.title }));
  const card = JSON.stringify({
    $schema: 'https://static.modelcontextprotocol.io/schemas/mcp-server-card/v1.json',
    name: 'svc-directory',
    title: 'Directory network',
    version: options.softwareVersion,
    description: 'Public search of businesses for AI agents, their check results and agentic scores, in one published order that cannot be bought.',
    websiteUrl: baseUrl,
    url: `${baseUrl}/mcp`,
    remotes: [{ type: 'streamable-http', url: `${baseUrl}/mcp` }],
    protocolVersions: ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
    capabilities: { tools: {} },
    authentication: { required: false },
    tools,
    documentation: `${baseUrl}/llms.txt`,
  });
  const catalog = JSON.stringify({
    specVersion: '0.1',
    host: new URL(baseUrl).host,
    entries: [
      { identifier: 'directory-mcp', displayName: 'Directory network (MCP)', type: 'mcp', url: `${baseUrl}/mcp` },
      { identifier: 'directory-openapi', displayName: 'Directory network (OpenAPI)', type: 'openapi', url: `${baseUrl}/openapi.json` },
    ],
  });
  const text = (body: string, type: string) => async (_request: unknown, reply: FastifyReply) =>
    reply.header('cache-control', 'public, max-age=3600').type(type).send(body);
  app.get('/robots.txt', text(robots, 'text/plain; charset=utf-8'));
  app.get('/llms.txt', text(llms, 'text/markdown; charset=utf-8'));
  app.get('/.well-known/mcp/server-card.json', text(card, 'application/json; charset=utf-8'));
  app.get('/.well-known/ai-catalog.json', text(catalog, 'application/json; charset=utf-8'));
}
