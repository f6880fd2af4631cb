/**
 * Reads one operation's contract back out of a served OpenAPI 3.1 document, in the shape an MCP tool
 * publishes it: one input object (path, query and body fields together; headers such as
 * Idempotency-Key are REST-only and left out), the success answer's schema, and the hints.
 */

type Json = Record<string, any>;

export interface RestContract {
  operationId: string;
  method: string;
  path: string;
  tag: string;
  /** Who may call it (x-audience): public or owner. */
  audience: string;
  summary: string;
  description: string;
  /** Every input field by name, wherever REST takes it from. */
  inputProperties: Record<string, Json>;
  /** Names of the fields REST requires. */
  inputRequired: string[];
  /** Header parameters REST takes besides (such as Idempotency-Key). */
  headers: string[];
  /** The schemas of every success answer (201 and the 200 of a replay, say); the same schema in each. */
  outputs: Json[];
  annotations: Json;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of the document, keyed by operationId. */
export function restContracts(openapi: Json): Map<string, RestContract> {
  const contracts = new Map<string, RestContract>();
  for (const [path, item] of Object.entries(openapi.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      contracts.set(operation.operationId, contractOf(path, method, operation));
    }
  }
  return contracts;
}

function contractOf(path: string, method: string, operation: Json): RestContract {
  const inputProperties: Record<string, Json> = {};
  const inputRequired: string[] = [];
  const headers: string[] = [];
  for (const parameter of (operation.parameters ?? []) as Json[]) {
    if (parameter.in === 'header') {
      headers.push(parameter.name);
      continue;
    }
    inputProperties[parameter.name] = parameter.schema;
    if (parameter.required) inputRequired.push(parameter.name);
  }
  const body = operation.requestBody?.content?.['application/json']?.schema as Json | undefined;
  for (const [name, schema] of Object.entries((body?.properties ?? {}) as Record<string, Json>)) inputProperties[name] = schema;
  inputRequired.push(...((body?.required ?? []) as string[]));

  const outputs = Object.entries(operation.responses as Record<string, Json>)
    .filter(([status]) => /^2\d\d$/.test(status))
    .map(([, response]) => response.content?.['application/json']?.schema as Json);
  return {
    operationId: operation.operationId,
    method: method.toUpperCase(),
    path,
    tag: operation.tags?.[0],
    audience: operation['x-audience'],
    summary: operation.summary,
    description: operation.description,
    inputProperties,
    inputRequired,
    headers,
    outputs,
    annotations: operation['x-annotations'],
  };
}
