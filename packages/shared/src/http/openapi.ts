/**
 * Builds the OpenAPI 3.1 document from an operation table. Nothing here is written by hand per
 * operation: parameters, bodies and responses all come from the operations' zod schemas.
 */
import { PROBLEM_CODES } from '../errors/problem-codes.js';
import { jsonSchemaOf, objectProperties, type JsonSchema } from '../operations/json-schema.js';
import { pathParameterNames, type AnyOperation } from '../operations/operation.js';

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  serverUrl: string;
}

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

export function buildOpenApiDocument<Ctx>(
  operations: readonly AnyOperation<Ctx>[],
  info: OpenApiInfo,
  securitySchemes: Record<string, JsonSchema> = {},
): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const pathItem = (paths[op.http.path] ??= {});
    pathItem[op.http.method.toLowerCase()] = operationObject(op, securitySchemes);
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      schemas: { Problem: PROBLEM_SCHEMA },
      securitySchemes,
    },
  };
}

function operationObject<Ctx>(op: AnyOperation<Ctx>, securitySchemes: Record<string, JsonSchema>): Record<string, unknown> {
  const securityNames = Object.keys(securitySchemes);
  // An OAuth scheme names the scope the operation needs; a bearer key carries its scopes itself.
  const requirement = (name: string) => ({ [name]: securitySchemes[name]?.type === 'oauth2' && op.scope ? [op.scope] : [] });
  const inputSchema = jsonSchemaOf(op.input, 'input');
  const properties = objectProperties(inputSchema);
  const required = new Set(Array.isArray(inputSchema.required) ? (inputSchema.required as string[]) : []);
  const pathNames = pathParameterNames(op.http.path);
  const hasBody = op.http.method !== 'GET' && op.http.method !== 'DELETE';

  const parameters: unknown[] = pathNames.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: properties[name] ?? { type: 'string' },
  }));
  const bodyProperties: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (pathNames.includes(name)) continue;
    if (hasBody) bodyProperties[name] = schema;
    else parameters.push({ name, in: 'query', required: required.has(name), schema, ...(schema.description ? { description: schema.description } : {}) });
  }
  if (op.kind === 'write') {
    parameters.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 200 } });
  }

  const successStatus = String(op.http.successStatus ?? 200);
  const responses: Record<string, unknown> = {
    [successStatus]: {
      description: op.title,
      content: { 'application/json': { schema: jsonSchemaOf(op.output, 'output') } },
    },
  };
  if (op.kind === 'write' && successStatus !== '200') {
    responses['200'] = {
      description: 'A replay of an earlier request with the same idempotency key (header Idempotent-Replayed: true).',
      content: { 'application/json': { schema: jsonSchemaOf(op.output, 'output') } },
    };
  }
  const statuses = new Set<number>([422, ...op.errors.map((code) => PROBLEM_CODES[code].status)]);
  for (const status of [...statuses].sort()) {
    responses[String(status)] = {
      description: op.errors.filter((c) => PROBLEM_CODES[c].status === status).join(', ') || 'Problem',
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }

  const requestSchema = { ...inputSchema, properties: bodyProperties, required: [...required].filter((n) => n in bodyProperties) };
  return {
    operationId: op.name,
    summary: op.title,
    description: op.description,
    tags: [op.audience],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(hasBody ? { requestBody: { required: false, content: { 'application/json': { schema: requestSchema } } } } : {}),
    responses,
    ...(op.audience === 'owner' && securityNames.length > 0 ? { security: securityNames.map(requirement) } : {}),
    'x-annotations': op.annotations,
    ...(op.scope ? { 'x-scope': op.scope } : {}),
  };
}
