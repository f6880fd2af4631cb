/**
 * The official MCP SDK client, asking for a chosen protocol revision. The SDK's Client always
 * offers its latest revision in `initialize`; a client of an older revision is one that offers that
 * revision instead, so the transport rewrites exactly that field and nothing else. Everything after
 * (the negotiated `MCP-Protocol-Version` header, result checks against outputSchema) is the SDK's own.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isInitializeRequest, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/** The revision the SDK (and so every server here) serves as current. */
export const CURRENT_REVISION = LATEST_PROTOCOL_VERSION;
/** Every older revision the SDK still negotiates, newest first. */
export const PREVIOUS_REVISIONS = SUPPORTED_PROTOCOL_VERSIONS.filter((revision) => revision !== LATEST_PROTOCOL_VERSION);

class RevisionTransport extends StreamableHTTPClientTransport {
  constructor(
    url: URL,
    private readonly revision: string,
    headers: Record<string, string>,
  ) {
    super(url, { requestInit: { headers } });
  }

  override send(message: JSONRPCMessage | JSONRPCMessage[], options?: Parameters<StreamableHTTPClientTransport['send']>[1]): Promise<void> {
    if (!Array.isArray(message) && isInitializeRequest(message)) {
      return super.send({ ...message, params: { ...message.params, protocolVersion: this.revision } }, options);
    }
    return super.send(message, options);
  }
}

export interface McpConnection {
  client: Client;
  /** The revision the server agreed to; the SDK sends it as `MCP-Protocol-Version` on every later request. */
  negotiated: string | undefined;
  close(): Promise<void>;
}

export async function connectMcp(url: string, options: { revision?: string; headers?: Record<string, string> } = {}): Promise<McpConnection> {
  const client = new Client({ name: 'svc-mcp-test', version: '1' });
  const transport = new RevisionTransport(new URL(url), options.revision ?? CURRENT_REVISION, options.headers ?? {});
  await client.connect(transport);
  return { client, negotiated: transport.protocolVersion, close: () => client.close() };
}

/** The text content of a tool result, joined. */
export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** A raw JSON-RPC POST to a Streamable HTTP endpoint, for what the SDK client cannot be made to send. */
export async function postJsonRpc(
  url: string,
  message: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(message),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text.length > 0 ? JSON.parse(text) : null };
}

export function initializeMessage(protocolVersion: string, id: number | string = 1): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-test', version: '1' } } };
}
