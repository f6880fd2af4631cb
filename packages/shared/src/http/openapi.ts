/**
 * Builds the OpenAPI 3.1 document from an operation table. Nothing here is written by hand per
 * operation: parameters, bodies and responses all come from the operations' zod schemas and their
 * declared metadata (audience, scope, item access, answers); the service adds what only it knows
 * (security schemes, tags, licence, webhooks). See docs/openapi.md.
 */
import { PROBLEM_CODES } from '../errors/problem-codes.js';
import { jsonSchemaOf, objectProperties, type JsonSchema } from '../operations/json-schema.js';
import { pathParameterNames, type AnyOperation } from '../operations/operation.js';

/** The parts of an operation the document reads (everything but the handler). */
export type OperationMeta = Omit<AnyOperation<never>, 'run'>;

export interface OpenApiTag {
  name: string;
  description: string;
}

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  serverUrl: string;
  /** `info.license` (SPDX identifier). */
  license?: { name: string; identifier: string };
  /** `info.contact`. */
  contact?: { name?: string; url?: string; email?: string };
  /** Every tag operations and webhooks use, with a description; `tagOf` must answer one of these. */
  tags?: readonly OpenApiTag[];
  /** The tag of an operation; the operation's audience when absent. */
  tagOf?: (op: OperationMeta) => string;
  /**
   * Which security schemes stand for what: an owner operation takes any of `owner` (an OAuth
   * scheme with the operation's scope), an operation with `itemAccess` any of `item`. Absent: owner
   * operations take every scheme and public ones none.
   */
  security?: { owner: readonly string[]; item: readonly string[] };
  /** Writes take an `Idempotency-Key` header and replay with 200 `Idempotent-Replayed: true` (default true). */
  idempotentWrites?: boolean;
  /** The problem input that fails its schema gets (default invalid_input, 422; the directory answers bad_request, 400). */
  inputProblem?: 'invalid_input' | 'bad_request';
  /** How 429 is described: which callers the service limits today. Absent: no 429 is declared. */
  rateLimits?: string;
  /**
   * Response headers any answer of a public operation may carry, declared once under
   * components.headers and on each of those responses (the inbox: `Svc-Signature`).
   */
  publicAnswerHeaders?: Record<string, JsonSchema>;
  /**
   * Path items of routes outside the operation table that answer something other than JSON (a text
   * note, bytes), written by the service; merged into `paths`, their tags counted as used.
   */
  extraPaths?: Record<string, Record<string, unknown>>;
  /** OpenAPI 3.1 `webhooks` (path items keyed by event type) and the component schemas they use. */
  webhooks?: { items: Record<string, unknown>; schemas: Record<string, JsonSchema> };
}

/**
 * The licence both documents declare. The repository has no LICENSE file and package.json names
 * none; Apache-2.0 was chosen for the API documents (see docs/openapi.md): change it here.
 */
export const PROJECT_LICENSE = { name: 'Apache License 2.0', identifier: 'Apache-2.0' } as const;

/** JSON Schema of a problem document (RFC 9457 with our code and fields). */
export const PROBLEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', enum: Object.keys(PROBLEM_CODES) },
    fields: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'problem', 'message'],
        properties: {
          path: { type: 'string' },
          problem: { type: 'string', enum: ['missing', 'invalid'] },
          message: { type: 'string' },
        },
      },
    },
  },
};

/** Response headers, declared once under components.headers (only those the document uses are kept). */
const HEADERS: Record<string, JsonSchema> = {
  Location: {
    description: 'Where what was made, or the canonical resource, is read (a path on this server).',
    schema: { type: 'string', format: 'uri-reference' },
  },
  ETag: {
    description: 'Entity tag of this answer: send it back in If-None-Match to get 304 while it still holds.',
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description: '`true` when this answer is the stored answer of an earlier request with the same idempotency key.',
    schema: { type: 'string', enum: ['true'] },
  },
  'X-Robots-Tag': {
    description: 'Present as `noindex` on answers search engines must not index (a business the directory found, not one that listed itself).',
    schema: { type: 'string', enum: ['noindex'] },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 0 },
  },
  'WWW-Authenticate': {
    description: 'The authentication challenge (RFC 9110 §11.6.1): the scheme and realm expected; on owner routes also `resource_metadata` for OAuth clients (RFC 9728).',
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'What is left of the limit (IETF draft-ietf-httpapi-ratelimit-headers), such as `"default";r=0;t=1`.',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'The limit that applies (IETF draft-ietf-httpapi-ratelimit-headers), such as `"default";q=10;w=1`.',
    schema: { type: 'string' },
  },
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable content',
  429: 'Too many requests',
  503: 'Service unavailable',
};

export function buildOpenApiDocument<Ctx>(
  operations: readonly AnyOperation<Ctx>[],
  info: OpenApiInfo,
  securitySchemes: Record<string, JsonSchema> = {},
): JsonSchema {
  const usedHeaders = new Set<string>();
  const headerComponents: Record<string, JsonSchema> = { ...HEADERS, ...(info.publicAnswerHeaders ?? {}) };
  const header = (name: string, required = false): JsonSchema => {
    if (!headerComponents[name]) throw new Error(`no header component ${name}`);
    usedHeaders.add(name);
    return required ? { ...headerComponents[name], required: true } : { $ref: `#/components/headers/${name}` };
  };
  const builder = new OperationBuilder(info, securitySchemes, header);

  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const pathItem = (paths[op.http.path] ??= {});
    pathItem[op.http.method.toLowerCase()] = builder.operation(op);
  }

  for (const [path, item] of Object.entries(info.extraPaths ?? {})) {
    paths[path] = { ...(paths[path] ?? {}), ...item };
    for (const operation of Object.values(item as Record<string, { tags?: string[] }>)) for (const tag of operation.tags ?? []) builder.usedTags.add(tag);
  }

  const declaredTags = new Set((info.tags ?? []).map((t) => t.name));
  if (info.tags) {
    for (const tag of builder.usedTags) if (!declaredTags.has(tag)) throw new Error(`OpenAPI tag ${tag} is used but not declared`);
  }
  const webhooks = info.webhooks;
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      description: info.description,
      ...(info.contact ? { contact: info.contact } : {}),
      ...(info.license ? { license: info.license } : {}),
    },
    servers: [{ url: info.serverUrl, description: 'This server.' }],
    ...(info.tags ? { tags: info.tags.filter((t) => builder.usedTags.has(t.name) || webhookTags(webhooks).has(t.name)) } : {}),
    // Each operation states its own requirement; the default is none (a public read).
    security: [],
    paths,
    ...(webhooks ? { webhooks: webhooks.items } : {}),
    components: {
      schemas: { Problem: PROBLEM_SCHEMA, ...(webhooks?.schemas ?? {}) },
      ...(usedHeaders.size > 0 ? { headers: Object.fromEntries([...usedHeaders].sort().map((name) => [name, headerComponents[name]])) } : {}),
      securitySchemes,
    },
  };
}

function webhookTags(webhooks: OpenApiInfo['webhooks']): Set<string> {
  const tags = new Set<string>();
  for (const item of Object.values(webhooks?.items ?? {})) {
    for (const operation of Object.values(item as Record<string, { tags?: string[] }>)) for (const tag of operation.tags ?? []) tags.add(tag);
  }
  return tags;
}

class OperationBuilder {
  readonly usedTags = new Set<string>();

  constructor(
    private readonly info: OpenApiInfo,
    private readonly schemes: Record<string, JsonSchema>,
    private readonly header: (name: string, required?: boolean) => JsonSchema,
  ) {}

  operation(op: OperationMeta): Record<string, unknown> {
    const inputSchema = jsonSchemaOf(op.input, 'input');
    const properties = objectProperties(inputSchema);
    const required = new Set(Array.isArray(inputSchema.required) ? (inputSchema.required as string[]) : []);
    const pathNames = pathParameterNames(op.http.path);
    const hasBody = op.http.method !== 'GET' && op.http.method !== 'DELETE';
    const idempotent = op.kind === 'write' && this.info.idempotentWrites !== false;
    const etag = op.answers?.etag === true;

    const parameters: unknown[] = pathNames.map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: properties[name] ?? { type: 'string' },
      ...(properties[name]?.description ? { description: properties[name].description } : {}),
    }));
    const bodyProperties: Record<string, JsonSchema> = {};
    for (const [name, schema] of Object.entries(properties)) {
      if (pathNames.includes(name)) continue;
      if (hasBody) bodyProperties[name] = schema;
      else parameters.push({ name, in: 'query', required: required.has(name), schema, ...(schema.description ? { description: schema.description } : {}) });
    }
    if (idempotent) {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'Makes a retry safe: the same key and request replays the first answer (200, Idempotent-Replayed: true).',
        schema: { type: 'string', minLength: 1, maxLength: 200 },
      });
    }
    if (etag) {
      parameters.push({
        name: 'If-None-Match',
        in: 'header',
        required: false,
        description: 'The ETag of an answer you hold: answered 304 with no body while it still holds.',
        schema: { type: 'string' },
      });
    }

    const tag = this.info.tagOf ? this.info.tagOf(op) : op.audience;
    this.usedTags.add(tag);
    const requestSchema = { ...inputSchema, properties: bodyProperties, required: [...required].filter((n) => n in bodyProperties) };
    return {
      operationId: op.name,
      summary: op.title,
      description: op.description,
      tags: [tag],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(hasBody ? { requestBody: { required: false, content: { 'application/json': { schema: requestSchema } } } } : {}),
      responses: this.responses(op, idempotent, etag),
      security: this.security(op),
      'x-audience': op.audience,
      'x-annotations': op.annotations,
      ...(op.scope ? { 'x-scope': op.scope } : {}),
    };
  }

  private responses(op: OperationMeta, idempotent: boolean, etag: boolean): Record<string, unknown> {
    const output = { 'application/json': { schema: jsonSchemaOf(op.output, 'output') } };
    const successStatus = op.http.successStatus ?? 200;
    const statuses = [...new Set([successStatus, ...(op.answers?.alsoStatuses ?? []), ...(idempotent ? [200] : [])])].sort();
    const responses: Record<string, unknown> = {};
    for (const status of statuses) {
      const headers: Record<string, JsonSchema> = {};
      if (op.answers?.location && (status === 201 || status === 202)) headers.Location = this.header('Location');
      if (etag && status === 200) headers.ETag = this.header('ETag');
      if (op.answers?.robotsTag && status === 200) headers['X-Robots-Tag'] = this.header('X-Robots-Tag');
      if (idempotent && status === 200) {
        headers['Idempotent-Replayed'] = this.header('Idempotent-Replayed');
        // A replay of a create carries the headers of the first answer, Location among them.
        if (op.answers?.location) headers.Location = this.header('Location');
      }
      this.addAnswerHeaders(op, headers);
      const description =
        status === successStatus
          ? op.title
          : status === 201
            ? `${op.title}: made anew.`
            : idempotent && !(op.answers?.alsoStatuses ?? []).includes(200)
              ? 'A replay of an earlier request with the same idempotency key (header Idempotent-Replayed: true).'
              : `${op.title}${idempotent ? '; also a replay of an earlier request with the same idempotency key (header Idempotent-Replayed: true)' : ''}.`;
      responses[String(status)] = {
        description,
        ...(Object.keys(headers).length > 0 ? { headers } : {}),
        ...(status === 204 ? {} : { content: output }),
      };
    }
    if (op.answers?.redirects) {
      responses['301'] = {
        description: 'Another spelling of the resource: Location names the canonical one.',
        headers: { Location: this.header('Location') },
      };
    }
    if (etag) {
      const notModified: Record<string, JsonSchema> = { ETag: this.header('ETag'), ...(op.answers?.robotsTag ? { 'X-Robots-Tag': this.header('X-Robots-Tag') } : {}) };
      this.addAnswerHeaders(op, notModified);
      responses['304'] = { description: 'Not modified: the ETag sent in If-None-Match still holds.', headers: notModified };
    }

    const codesByStatus = new Map<number, string[]>();
    const add = (status: number, code: string | null) => {
      const codes = codesByStatus.get(status) ?? [];
      if (code && !codes.includes(code)) codes.push(code);
      codesByStatus.set(status, codes);
    };
    const inputProblem = this.info.inputProblem ?? 'invalid_input';
    if (Object.keys(objectProperties(jsonSchemaOf(op.input, 'input'))).length > 0) add(PROBLEM_CODES[inputProblem].status, inputProblem);
    for (const code of op.errors) add(PROBLEM_CODES[code].status, code);
    if (this.security(op).length > 0) add(401, 'unauthorized');
    // A credential without the operation's scope is refused (an AI app always; keys under enforced scopes).
    if (op.scope) add(403, 'not_allowed');
    if (op.http.method !== 'GET' && op.http.method !== 'DELETE') {
      add(400, 'bad_request');
      add(413, 'payload_too_large');
      add(415, 'unsupported_media_type');
    }
    if (this.info.rateLimits !== undefined) add(429, 'rate_limited');
    // A write the disk refuses (full, or an I/O error) is a 503 with Retry-After (storage-health.ts).
    if (op.kind !== 'read') {
      add(503, 'storage_full');
      add(503, 'storage_unavailable');
    }

    for (const status of [...codesByStatus.keys()].sort()) {
      const codes = codesByStatus.get(status) ?? [];
      const headers: Record<string, JsonSchema> = {};
      if (status === 401) headers['WWW-Authenticate'] = this.header('WWW-Authenticate');
      if (status === 429 || status === 503) headers['Retry-After'] = this.header('Retry-After');
      if (status === 429) {
        headers.RateLimit = this.header('RateLimit');
        headers['RateLimit-Policy'] = this.header('RateLimit-Policy');
      }
      this.addAnswerHeaders(op, headers);
      const named = codes.length > 0 ? `${STATUS_TEXT[status] ?? 'Problem'}: ${codes.join(', ')}.` : `${STATUS_TEXT[status] ?? 'Problem'}.`;
      responses[String(status)] = {
        description: status === 429 && this.info.rateLimits ? `${named} ${this.info.rateLimits}` : named,
        ...(Object.keys(headers).length > 0 ? { headers } : {}),
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      };
    }
    return responses;
  }

  /** The headers every answer of a public operation may carry (OpenApiInfo.publicAnswerHeaders). */
  private addAnswerHeaders(op: OperationMeta, headers: Record<string, JsonSchema>): void {
    if (op.audience !== 'public') return;
    for (const name of Object.keys(this.info.publicAnswerHeaders ?? {})) headers[name] = this.header(name);
  }

  private security(op: OperationMeta): Record<string, string[]>[] {
    const names = Object.keys(this.schemes);
    const owner = this.info.security?.owner ?? names;
    const item = this.info.security?.item ?? [];
    // An OAuth scheme names the scope the operation needs; a bearer key carries its scopes itself.
    const requirement = (name: string) => ({ [name]: this.schemes[name]?.type === 'oauth2' && op.scope ? [op.scope] : [] });
    if (op.audience === 'owner') return owner.map(requirement);
    if (op.itemAccess && item.length > 0) {
      const alternatives = item.map(requirement);
      // `{}` is the anonymous alternative: the call may be made without a token.
      return op.itemAccess === 'optional' ? [...alternatives, {}] : alternatives;
    }
    return [];
  }
}
