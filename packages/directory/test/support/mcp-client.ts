/** One MCP tool call over Streamable HTTP with the official SDK client (a client per call, closed after). */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface ToolResult {
  isError?: boolean;
  structuredContent?: any;
  content: { type: string; text: string }[];
}

export async function mcpCall(baseUrl: string, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const client = new Client({ name: 'directory-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)));
  try {
    return (await client.callTool({ name, arguments: args })) as ToolResult;
  } finally {
    await client.close();
  }
}

/** The text content of a tool result, joined. */
export function textOf(result: ToolResult): string {
  return result.content.map((c) => c.text).join('\n');
}
