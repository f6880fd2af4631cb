/**
 * Mounts an operation table on Fastify as a stateless MCP server (Streamable HTTP, one plain POST per
 * call). Tools carry the operation's name, description, annotations and the very JSON Schema the
 * REST door documents; input is validated with the operation's own zod schema, so a refusal is the
 * same problem document as on REST, delivered in `structuredContent.error` with `isError: true`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { Problem } from '../errors/problem.js';
import { problemFromZod } from '../errors/zod-fields.js';
import { jsonSchemaOf, type JsonSchema } from '../operations/json-schema.js';
import type { AnyOperation } from '../operations/operation.js';
import { sendProblem, toProblem, type OperationOutcome } from '../http/rest-door.js';
import { isStorageProblemCode } from '../storage/storage-health.js';
import { PROBLEM_SCHEMA } from '../http/openapi.js';

export interface McpDoorOptions<Ctx, Admission = unknown> {
  /** Where the server answers, e.g. `/mcp`. */
  path: string;
  serverInfo: { name: string; version: string };
  /** Short server instructions for the agent. */
  instructions: string;
  operations: readonly AnyOperation<Ctx>[];
  /**
   * Runs before a tool's arguments are validated: authentication and the scope the call needs, so
   * a caller refused anyway is refused for that first (as on REST). Its result goes to `execute`.
   */
  admit?: (op: AnyOperation<Ctx>, request: FastifyRequest) => Promise<Admission>;
  /** Runs a validated call; the service wraps authentication, idempotency and transactions here. */
  execute: (op: AnyOperation<Ctx>, input: unknown, request: FastifyRequest, admission: Admission | undefined) => Promise<OperationOutcome>;
  /** Base of problem `type` URLs. */
  problemsBase: string;
  /** Checked before any MCP message is handled; a thrown Problem is answered over HTTP (e.g. 401 with a challenge). */
  authenticate?: (request: FastifyRequest) => Promise<void>;
  /** The refusal for input that fails its schema; defaults to 422 invalid_input with fields. */
  inputProblem?: (error: z.ZodError) => Problem;
  /** The text content of a successful result; defaults to the JSON of the body. */
  formatText?: (body: unknown, op: AnyOperation<Ctx>) => string;
  log?: (error: unknown) => void;
  /**
   * Browser origins allowed to call (the service's own public origin and any configured ones).
   * Loopback origins are always allowed; a request without Origin is not from a browser page.
   * `'any'`: a public server whose answers are the same for every caller (docs/http.md).
   */
  allowedOrigins?: readonly string[] | 'any';
}

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The MCP transport asks servers to check Origin so a web page cannot drive them through the
 * visitor's browser (DNS rebinding): an Origin that is present must be one we know.
 */
export function originAllowed(origin: string, allowed: readonly string[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (LOOPBACK_HOSTNAMES.has(parsed.hostname)) return true;
  return allowed.some((entry) => {
    try {
      return new URL(entry).origin === parsed.origin;
    } catch {
      return false;
    }
  });
}

/** `MCP_ALLOWED_ORIGINS` (comma-separated origins) plus the service's own public origin. */
export function allowedOriginsFor(publicBaseUrl: string, fromEnvironment = process.env.MCP_ALLOWED_ORIGINS): string[] {
  const configured = (fromEnvironment ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry.length > 0);
  return [publicBaseUrl, ...configured];
}

/** The tool list of a table, as `tools/list` answers it. */
export function toolsOf<Ctx>(operations: readonly AnyOperation<Ctx>[]): Tool[] {
  return operations.map((op) => {
    const input = jsonSchemaOf(op.input, 'input');
    if (input.type !== 'object') throw new Error(`operation ${op.name} needs an object input schema to be an MCP tool`);
    const output = jsonSchemaOf(op.output, 'output');
    const tool: Tool = {
      name: op.name,
      title: op.title,
      description: op.description,
      inputSchema: input as Tool['inputSchema'],
      annotations: {
        title: op.title,
        readOnlyHint: op.annotations.readOnlyHint,
        idempotentHint: op.annotations.idempotentHint,
        destructiveHint: op.annotations.destructiveHint,
      },
    };
    // A refusal carries {error: problem} in structuredContent (inbox spec §7); clients check
    // structuredContent against outputSchema even on errors, so both shapes are published.
    if (alwaysAnObject(output)) {
      tool.outputSchema = { type: 'object', anyOf: [output, REFUSAL_SCHEMA] } as Tool['outputSchema'];
    }
    return tool;
  });
}

/**
 * MCP wants an object at the root of outputSchema (structuredContent is an object); a union of
 * object answers (send_message: a new item or the item replied on) is one too.
 */
function alwaysAnObject(schema: JsonSchema): boolean {
  if (schema.type === 'object') return true;
  // An intersection is an object when any part demands one.
  if (Array.isArray(schema.allOf) && schema.allOf.some((part) => alwaysAnObject(part as JsonSchema))) return true;
  const options = schema.anyOf ?? schema.oneOf;
  return Array.isArray(options) && options.length > 0 && options.every((option) => alwaysAnObject(option as JsonSchema));
}

/** The tool result of a refusal: the problem document, and a text naming the fields to fix. */
const REFUSAL_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: { error: PROBLEM_SCHEMA },
  description: 'A refusal: the problem document, as REST answers it.',
};

export function problemResult(problem: Problem, problemsBase: string): CallToolResult {
  const document = problem.toDocument(problemsBase);
  const fixes = (problem.fields ?? []).map((f) => `${f.path} (${f.problem}: ${f.message})`);
  const text = fixes.length > 0 ? `${problem.message} Fix: ${fixes.join(', ')}` : problem.message;
  return { isError: true, structuredContent: { error: document }, content: [{ type: 'text', text }] };
}

export function mountMcpOperations<Ctx, Admission = unknown>(app: FastifyInstance, options: McpDoorOptions<Ctx, Admission>): void {
  const tools = toolsOf(options.operations);
  const byName = new Map(options.operations.map((op) => [op.name, op]));
  const log = options.log ?? ((error: unknown) => app.log.error(error));

  const callTool = async (name: string, args: unknown, request: FastifyRequest): Promise<CallToolResult> => {
    const op = byName.get(name);
    if (!op) return problemResult(new Problem('not_found', `No tool is called ${name}.`), options.problemsBase);
    try {
      const admission = options.admit ? await options.admit(op, request) : undefined;
      const parsed = op.input.safeParse(args ?? {});
      if (!parsed.success) throw (options.inputProblem ?? problemFromZod)(parsed.error);
      const outcome = await options.execute(op, parsed.data, request, admission);
      const body = outcome.body ?? {};
      const text = options.formatText ? options.formatText(body, op) : JSON.stringify(body);
      const result: CallToolResult = { content: [{ type: 'text', text }] };
      if (typeof body === 'object' && !Array.isArray(body)) result.structuredContent = body as Record<string, unknown>;
      return result;
    } catch (error) {
      const problem = toProblem(error);
      // A storage failure is logged once per episode by the database's StorageHealth, not per call.
      if (problem.status >= 500 && !isStorageProblemCode(problem.code)) log(error);
      return problemResult(problem, options.problemsBase);
    }
  };

  app.post(options.path, async (request, reply) => {
    const origin = request.headers.origin;
    const allowedOrigins = options.allowedOrigins ?? [];
    if (origin !== undefined && allowedOrigins !== 'any' && !originAllowed(origin, allowedOrigins)) {
      const refusal = new Problem('not_allowed', `Calls from the web origin ${origin} are not allowed; set MCP_ALLOWED_ORIGINS to allow it.`);
      return sendProblem(reply, refusal, options.problemsBase);
    }
    if (options.authenticate) {
      try {
        await options.authenticate(request);
      } catch (error) {
        if (!(error instanceof Problem)) throw error;
        return sendProblem(reply, error, options.problemsBase);
      }
    }
    const server = new Server(options.serverInfo, { capabilities: { tools: {} }, instructions: options.instructions });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, (call) => callTool(call.params.name, call.params.arguments, request));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    // The transport writes the answer itself: headers hooks set on the reply (CORS) go on the socket's answer first.
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    reply.hijack();
    reply.raw.setHeader('cache-control', 'no-store');
    await transport.handleRequest(request.raw, reply.raw, request.body);
    return reply;
  });

  const notAllowed = async (request: FastifyRequest): Promise<never> => {
    throw new Problem('method_not_allowed', `${request.method} is not allowed on ${options.path}; this MCP server is stateless, use POST.`, {
      headers: { allow: 'POST' },
    });
  };
  app.get(options.path, notAllowed);
  app.delete(options.path, notAllowed);
}
