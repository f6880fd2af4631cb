/** JSON Schema (2020-12, as OpenAPI 3.1 and MCP use) from the operation's zod schemas. */
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

const cache = new WeakMap<z.ZodType, { input?: JsonSchema; output?: JsonSchema }>();

export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const entry = cache.get(schema) ?? {};
  const known = entry[io];
  if (known) return known;
  const generated = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', reused: 'inline' }) as JsonSchema;
  delete generated.$schema;
  entry[io] = generated;
  cache.set(schema, entry);
  return generated;
}

/** Properties of an object schema, for splitting input into path, query and body. */
export function objectProperties(schema: JsonSchema): Record<string, JsonSchema> {
  const properties = schema.properties;
  return properties && typeof properties === 'object' ? (properties as Record<string, JsonSchema>) : {};
}

/** The primitive kind a query string value must be turned into, read off the schema. */
export function primitiveKind(schema: JsonSchema): 'integer' | 'number' | 'boolean' | 'array' | 'string' | 'unknown' {
  const type = schema.type;
  if (typeof type === 'string') {
    if (type === 'integer' || type === 'number' || type === 'boolean' || type === 'array' || type === 'string') return type;
  }
  if (Array.isArray(type)) {
    const concrete = type.filter((t) => t !== 'null');
    if (concrete.length === 1) return primitiveKind({ type: concrete[0] });
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options)) {
      const kinds = new Set(options.map((o) => primitiveKind(o as JsonSchema)).filter((k) => k !== 'unknown'));
      if (kinds.size === 1) return [...kinds][0] as ReturnType<typeof primitiveKind>;
    }
  }
  return 'unknown';
}
