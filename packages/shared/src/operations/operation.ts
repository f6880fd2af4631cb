/**
 * An operation is defined once: name, schemas, annotations, handler. Every door (REST, OpenAPI, MCP)
 * is generated from a table of these, so names, schemas and refusals cannot drift between doors.
 * This file knows nothing of HTTP frameworks or storage.
 */
import type { z } from 'zod';
import type { ProblemCode } from '../errors/problem-codes.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** MCP tool hints; also documented in OpenAPI as x-annotations. */
export interface OperationAnnotations {
  readOnlyHint: boolean;
  idempotentHint: boolean;
  destructiveHint: boolean;
}

/** Statuses and headers an operation's answers may have besides its success status and body. */
export interface OperationAnswers {
  /** Success statuses the handler may choose besides `http.successStatus` (201 when an upsert creates, 200 for a reply). */
  alsoStatuses?: readonly number[];
  /** A 201 answer carries a `Location` header naming what it made. */
  location?: boolean;
  /** Answers carry an `ETag`; a request with a matching `If-None-Match` is answered 304. */
  etag?: boolean;
  /** Some answers (and their 304s) carry `X-Robots-Tag: noindex` (the directory's businesses it found). */
  robotsTag?: boolean;
  /** Another spelling of the resource is answered 301 with a Location naming the canonical one. */
  redirects?: boolean;
}

/** What a handler may add besides its body: headers such as Location, and a different status. */
export interface ResponseExtras {
  status?: number;
  headers?: Record<string, string>;
  /** The body already serialised, with the ETag of those bytes (an answer kept in memory); doors that send JSON send these. */
  serialized?: SerializedBody;
}

/** A body's JSON bytes and their strong ETag. */
export interface SerializedBody {
  bytes: Buffer;
  etag: string;
  /**
   * Set when these bytes are the answer to this very request for anyone who asks it without
   * credentials, for as long as it says true (what they were built from has not changed): the HTTP
   * door may then keep the whole answer and replay it (http/answer-replay.ts). Synchronous and cheap.
   */
  holds?: () => boolean;
}

export interface OperationDefinition<Ctx, I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  /** snake_case, spelled as in the contract: tool name, operationId and log label at once. */
  name: string;
  title: string;
  description: string;
  /** Who may call it; the service maps this to its authentication. */
  audience: 'public' | 'owner' | 'system';
  /** A write takes an idempotency key and is never cached. */
  kind: 'read' | 'write';
  http: { method: HttpMethod; path: string; successStatus?: number };
  input: I;
  output: O;
  annotations: OperationAnnotations;
  /** Seconds a public cache may keep the answer; absent means uncacheable. */
  cacheMaxAgeSec?: number;
  /** Problem codes this operation can answer with, for the OpenAPI document. */
  errors: readonly ProblemCode[];
  /** Scope a key needs (owner operations). */
  scope?: string;
  /**
   * A public operation on one item takes that item's access token: `required`, or `optional` when
   * the call may also be made without an item (send_message starts a conversation without one).
   * Documented in OpenAPI as the item-token security schemes.
   */
  itemAccess?: 'required' | 'optional';
  /** What the answers carry beyond the output schema, for the OpenAPI document. */
  answers?: OperationAnswers;
  run: (ctx: Ctx, input: z.output<I>, extras: ResponseExtras) => Promise<z.input<O>>;
}

// The table holds operations of many input/output types; `any` here is the erasure point.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation<Ctx> = OperationDefinition<Ctx, any, any>;

export function defineOperation<Ctx, I extends z.ZodType, O extends z.ZodType>(
  definition: OperationDefinition<Ctx, I, O>,
): OperationDefinition<Ctx, I, O> {
  if (!/^[a-z][a-z0-9_]*$/.test(definition.name)) throw new Error(`operation name ${definition.name} must be snake_case`);
  return Object.freeze(definition);
}

/** Checks a table once at start: unique names, unique method+path pairs. */
export function assertOperationTable<Ctx>(operations: readonly AnyOperation<Ctx>[]): void {
  const names = new Set<string>();
  const routes = new Set<string>();
  for (const op of operations) {
    if (names.has(op.name)) throw new Error(`duplicate operation name ${op.name}`);
    names.add(op.name);
    const route = `${op.http.method} ${op.http.path}`;
    if (routes.has(route)) throw new Error(`duplicate route ${route}`);
    routes.add(route);
  }
}

/** Names of the `{param}` segments of an OpenAPI-style path. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g)].map((m) => m[1] as string);
}
