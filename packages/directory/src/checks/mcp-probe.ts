/**
 * An MCP door, read with the official SDK's client over Streamable HTTP: `initialize`, then
 * `tools/list` (a few pages at most), then close. Never `tools/call`. Every request goes through
 * the site's fetcher (its budgets, robots.txt, the SSRF-safe fetch). Read-only tools (readOnlyHint)
 * give only what a read can give.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { capabilitiesOfName } from '../domain/checks/name-capabilities.js';
import { cleanIdentifier } from '../domain/checks/site-text.js';
import type { CapabilityId } from '../domain/checks/capabilities.js';
import type { SiteFetcher } from './site-fetcher.js';

export interface McpTool {
  name: string;
  readOnly: boolean;
  capabilities: CapabilityId[];
}

export interface McpReading {
  ok: boolean;
  tools: McpTool[];
  /** serverInfo.websiteUrl, when the server gives one. */
  websiteUrl: string | null;
  protocolVersion: string | null;
  detail?: string;
}

const MAX_PAGES = 3;
const MAX_TOOLS = 200;

export async function readMcpServer(fetcher: SiteFetcher, endpoint: string, allowed: (url: string) => boolean): Promise<McpReading> {
  const client = new Client({ name: fetcher.settings.productToken, version: '1.0' });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint), { fetch: fetcher.mcpFetch(allowed) });
  const timeout = Math.max(500, Math.min(fetcher.settings.requestTimeoutMs * 3, fetcher.remainingMs()));
  try {
    await client.connect(transport, { timeout });
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES && tools.length < MAX_TOOLS; page++) {
      const listed = await client.listTools(cursor ? { cursor } : {}, { timeout });
      for (const tool of listed.tools) {
        const name = cleanIdentifier(tool.name);
        if (!name || tools.length >= MAX_TOOLS) continue;
        const readOnly = tool.annotations?.readOnlyHint === true;
        tools.push({ name, readOnly, capabilities: capabilitiesOfName(name, { readOnly }) });
      }
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    const info = client.getServerVersion() as { websiteUrl?: unknown } | undefined;
    return {
      ok: true,
      tools,
      websiteUrl: typeof info?.websiteUrl === 'string' ? info.websiteUrl : null,
      protocolVersion: (transport as unknown as { protocolVersion?: string }).protocolVersion ?? null,
    };
  } catch (error) {
    return { ok: false, tools: [], websiteUrl: null, protocolVersion: null, detail: error instanceof Error ? error.message.slice(0, 200) : 'no answer' };
  } finally {
    await client.close().catch(() => undefined);
  }
}
