/**
 * The local web: sample business sites served on 127.0.0.1, one server for all of them, told apart by
 * the Host header (names under the reserved `.test`). The directory reaches it only with the
 * development setting DIRECTORY_CHECK_LOCAL_WEB (off by default); tests and `npm start` use it so the
 * check, the leaderboard and found listings have real sites to read. MCP doors are real MCP servers
 * made with the official SDK. Every request is logged, so tests can tell what the crawler did.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { SAMPLE_SITES, type McpToolSpec, type SampleSite } from './sample-sites.js';

export interface LoggedRequest {
  host: string;
  method: string;
  path: string;
  /** The JSON-RPC method of an MCP request. */
  rpc?: string;
  userAgent: string;
  at: number;
}

export interface LocalWeb {
  /** `127.0.0.1:<port>`: the value of DIRECTORY_CHECK_LOCAL_WEB. */
  address: string;
  sites: readonly SampleSite[];
  log: LoggedRequest[];
  close(): Promise<void>;
}

function mcpServerFor(site: SampleSite, tools: readonly McpToolSpec[]): McpServer {
  const server = new McpServer({ name: `${site.host} tools`, version: '1.0.0', ...(site.mcpWebsite ? { websiteUrl: site.mcpWebsite } : {}) });
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      { title: tool.title ?? tool.name, description: tool.description ?? tool.name, inputSchema: { note: z.string().max(200).optional() }, annotations: { readOnlyHint: tool.readOnly ?? false } },
      // A sample site's tool answers, but the directory's check never calls one (the test log holds that).
      async () => ({ content: [{ type: 'text', text: `${tool.name} is a sample tool.` }] }),
    );
  }
  return server;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > 1024 * 1024) break;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function startLocalWeb(options: { port?: number; sites?: readonly SampleSite[] } = {}): Promise<LocalWeb> {
  const sites = options.sites ?? SAMPLE_SITES;
  const byHost = new Map(sites.map((s) => [s.host, s]));
  const log: LoggedRequest[] = [];
  const open = new Set<ServerResponse>();

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    open.add(response);
    response.on('close', () => open.delete(response));
    const host = (request.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
    const url = new URL(request.url ?? '/', `http://${host || 'unknown.test'}`);
    const entry: LoggedRequest = { host, method: request.method ?? 'GET', path: url.pathname + url.search, userAgent: String(request.headers['user-agent'] ?? ''), at: Date.now() };
    log.push(entry);
    // Every POST's JSON-RPC method is logged (a POST the crawler sends anywhere is an MCP message).
    let parsed: unknown;
    let posted = false;
    if (request.method === 'POST') {
      posted = true;
      try {
        parsed = JSON.parse(await readBody(request));
        entry.rpc = typeof (parsed as { method?: unknown }).method === 'string' ? (parsed as { method: string }).method : undefined;
      } catch {
        parsed = undefined;
      }
    }
    const site = byHost.get(host) ?? byHost.get(host.split('.').slice(-2).join('.'));
    if (!site) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('no such site');
      return;
    }
    if (site.delayMs) await new Promise((resolve) => setTimeout(resolve, site.delayMs));
    if (response.destroyed) return;
    for (const mcp of site.mcp ?? []) {
      if (url.pathname !== mcp.path) continue;
      if (request.method !== 'POST') {
        response.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      if (!posted || parsed === undefined) {
        response.writeHead(400).end();
        return;
      }
      if (mcp.broken) {
        response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"broken"}');
        return;
      }
      const server = mcpServerFor(site, mcp.tools);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      response.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request, response, parsed);
      return;
    }
    const page = site.pages[url.pathname];
    if (page === undefined) {
      if (site.fallback) {
        await site.fallback(request, response, url);
        return;
      }
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found');
      return;
    }
    if (typeof page === 'function') {
      await page(request, response, url);
      return;
    }
    response.writeHead(page.status ?? 200, { 'content-type': page.type ?? 'text/html; charset=utf-8', ...(page.headers ?? {}) }).end(page.body ?? '');
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    address: `127.0.0.1:${port}`,
    sites,
    log,
    async close() {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
