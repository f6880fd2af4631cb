/**
 * Webhook endpoints (inbox spec §2, §3 "Webhook endpoint states", §4 rules 1-4): register, list,
 * change, rotate the secret, delete. Secrets and extra header values are sealed with the SecretBox;
 * the secret is shown only in the answer that made it.
 */
import { Problem, newId, type FieldProblem } from '@svc/shared';
import type { DomainContext } from '../context.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { isoUtc } from '../time.js';
import type { PayloadStyle, WebhookEndpointRecord } from '../../store/webhook-store.js';
import { patternProblem } from '../events/event-patterns.js';
import { MAX_EXTRA_HEADERS, headerNameProblem, headerValueProblem, normaliseHeaderName } from './endpoint-headers.js';
import { endpointUrlProblem, normalEndpointUrl, type UrlPolicy } from './endpoint-url.js';
import { newSigningSecret } from './signing.js';

/** Both secrets sign for 24 hours after a rotation (inbox spec §8). */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
/** Each endpoint adds a delivery row per event; a bound keeps one write's fan-out small. */
export const MAX_ENDPOINTS = 20;

const SECRET_PURPOSE = 'webhook.secret';
const PREVIOUS_SECRET_PURPOSE = 'webhook.previous_secret';
const headerPurpose = (name: string) => `webhook.header:${name}`;

export interface EndpointDeps {
  secrets: SecretBox;
  urls: UrlPolicy;
}

export function endpointView(e: WebhookEndpointRecord) {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    payload_style: e.payloadStyle,
    headers: e.headerNames,
    active: e.active,
    disabled_at: e.disabledAt === null ? null : isoUtc(e.disabledAt),
    last_error: e.lastError,
    last_error_at: e.lastErrorAt === null ? null : isoUtc(e.lastErrorAt),
    failing_since: e.failingSince === null ? null : isoUtc(e.failingSince),
    previous_secret_expires_at: e.previousSecretUntil === null ? null : isoUtc(e.previousSecretUntil),
    created_at: isoUtc(e.createdAt),
    updated_at: isoUtc(e.updatedAt),
  };
}

export type EndpointView = ReturnType<typeof endpointView>;

export async function loadEndpoint(ctx: DomainContext, id: string): Promise<WebhookEndpointRecord> {
  const endpoint = await ctx.store.webhooks.getEndpoint(id);
  if (!endpoint) throw new Problem('not_found', `No webhook endpoint has id ${id}.`);
  return endpoint;
}

export interface NewEndpoint {
  url: string;
  events?: string[] | undefined;
  payloadStyle?: PayloadStyle | undefined;
  headers?: Record<string, string> | undefined;
}

export async function createEndpoint(ctx: DomainContext, deps: EndpointDeps, request: NewEndpoint): Promise<{ endpoint: EndpointView; secret: string }> {
  const problems = [...urlProblems(request.url, deps.urls), ...eventsProblems(request.events)];
  const headerChanges = checkHeaderChanges([], request.headers ?? {}, problems);
  if (problems.length > 0) throw new Problem('invalid_input', problems.map((p) => `${p.path}: ${p.message}`).join('; '), { fields: problems });
  if ((await ctx.store.webhooks.listEndpoints()).length >= MAX_ENDPOINTS) {
    throw new Problem('not_allowed', `An inbox has at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`);
  }
  const nowMs = ctx.clock.now();
  const id = newId(nowMs);
  const secret = newSigningSecret();
  const endpoint: WebhookEndpointRecord = {
    id,
    url: normalEndpointUrl(request.url),
    events: dedupe(request.events ?? ['*']),
    payloadStyle: request.payloadStyle ?? 'thin',
    headerNames: [],
    sealedHeaders: {},
    sealedSecret: deps.secrets.seal(secret, SECRET_PURPOSE, id),
    sealedPreviousSecret: null,
    previousSecretUntil: null,
    active: true,
    disabledAt: null,
    lastError: null,
    lastErrorAt: null,
    failingSince: null,
    createdAt: nowMs,
    updatedAt: nowMs,
  };
  applyHeaderChanges(endpoint, headerChanges, deps.secrets);
  await ctx.store.webhooks.insertEndpoint(endpoint);
  return { endpoint: endpointView(endpoint), secret };
}

export interface EndpointChange {
  url?: string | undefined;
  events?: string[] | undefined;
  payloadStyle?: PayloadStyle | undefined;
  headers?: Record<string, string | null> | undefined;
  active?: boolean | undefined;
}

export async function changeEndpoint(ctx: DomainContext, deps: EndpointDeps, id: string, change: EndpointChange): Promise<EndpointView> {
  const endpoint = await loadEndpoint(ctx, id);
  const problems = [...(change.url === undefined ? [] : urlProblems(change.url, deps.urls)), ...eventsProblems(change.events)];
  const headerChanges = checkHeaderChanges(endpoint.headerNames, change.headers ?? {}, problems);
  if (problems.length > 0) throw new Problem('invalid_input', problems.map((p) => `${p.path}: ${p.message}`).join('; '), { fields: problems });
  const nowMs = ctx.clock.now();
  const next: WebhookEndpointRecord = { ...endpoint, updatedAt: nowMs };
  if (change.url !== undefined) next.url = normalEndpointUrl(change.url);
  if (change.events !== undefined) next.events = dedupe(change.events);
  if (change.payloadStyle !== undefined) next.payloadStyle = change.payloadStyle;
  applyHeaderChanges(next, headerChanges, deps.secrets);
  if (change.active === true && !endpoint.active) {
    // Re-enabling clears the failure run (spec §3): the five days start again from the next failure.
    Object.assign(next, { active: true, disabledAt: null, failingSince: null });
  } else if (change.active === false && endpoint.active) {
    Object.assign(next, { active: false, disabledAt: nowMs });
  }
  await ctx.store.webhooks.updateEndpoint(next);
  if (change.active === false && endpoint.active) await ctx.store.webhooks.failPending(id, 'the endpoint was paused', nowMs);
  return endpointView(next);
}

export async function rotateSecret(ctx: DomainContext, deps: EndpointDeps, id: string): Promise<{ endpoint: EndpointView; secret: string }> {
  const endpoint = await loadEndpoint(ctx, id);
  const nowMs = ctx.clock.now();
  const secret = newSigningSecret();
  const current = deps.secrets.open(endpoint.sealedSecret, SECRET_PURPOSE, id);
  const next: WebhookEndpointRecord = {
    ...endpoint,
    sealedSecret: deps.secrets.seal(secret, SECRET_PURPOSE, id),
    sealedPreviousSecret: deps.secrets.seal(current, PREVIOUS_SECRET_PURPOSE, id),
    previousSecretUntil: nowMs + ROTATION_OVERLAP_MS,
    updatedAt: nowMs,
  };
  await ctx.store.webhooks.updateEndpoint(next);
  return { endpoint: endpointView(next), secret };
}

export async function deleteEndpoint(ctx: DomainContext, id: string): Promise<void> {
  if (!(await ctx.store.webhooks.deleteEndpoint(id))) throw new Problem('not_found', `No webhook endpoint has id ${id}.`);
}

/** The secrets that sign a delivery now: the current one, and the previous one during the overlap. */
export function signingSecrets(endpoint: WebhookEndpointRecord, secrets: Pick<SecretBox, 'open'>, nowMs: number): string[] {
  const inForce = [secrets.open(endpoint.sealedSecret, SECRET_PURPOSE, endpoint.id)];
  if (endpoint.sealedPreviousSecret && endpoint.previousSecretUntil !== null && nowMs < endpoint.previousSecretUntil) {
    inForce.push(secrets.open(endpoint.sealedPreviousSecret, PREVIOUS_SECRET_PURPOSE, endpoint.id));
  }
  return inForce;
}

export function extraHeaders(endpoint: WebhookEndpointRecord, secrets: Pick<SecretBox, 'open'>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of endpoint.headerNames) {
    const sealed = endpoint.sealedHeaders[name];
    if (sealed) headers[name] = secrets.open(sealed, headerPurpose(name), endpoint.id);
  }
  return headers;
}

function urlProblems(url: string, policy: UrlPolicy): FieldProblem[] {
  const problem = endpointUrlProblem(url, policy);
  return problem ? [{ path: 'url', problem: 'invalid', message: `The url ${problem}.` }] : [];
}

function eventsProblems(events: string[] | undefined): FieldProblem[] {
  return (events ?? []).flatMap((pattern, index) => {
    const problem = patternProblem(pattern);
    return problem ? [{ path: `events.${index}`, problem: 'invalid' as const, message: `${pattern}: ${problem}.` }] : [];
  });
}

type HeaderChanges = Map<string, string | null>;

/** Checks a merge of header changes over the names an endpoint has; adds refusals to `problems`. */
function checkHeaderChanges(current: readonly string[], changes: Record<string, string | null>, problems: FieldProblem[]): HeaderChanges {
  const checked: HeaderChanges = new Map();
  for (const [rawName, value] of Object.entries(changes)) {
    const name = normaliseHeaderName(rawName);
    const problem = headerNameProblem(name) ?? (value === null ? null : headerValueProblem(value));
    if (problem) problems.push({ path: `headers.${rawName}`, problem: 'invalid', message: `${rawName}: ${problem}.` });
    else checked.set(name, value);
  }
  const names = new Set(current);
  for (const [name, value] of checked) {
    if (value === null) names.delete(name);
    else names.add(name);
  }
  if (names.size > MAX_EXTRA_HEADERS) {
    problems.push({ path: 'headers', problem: 'invalid', message: `At most ${MAX_EXTRA_HEADERS} extra headers; this would make ${names.size}.` });
  }
  return checked;
}

function applyHeaderChanges(endpoint: WebhookEndpointRecord, changes: HeaderChanges, secrets: SecretBox): void {
  const sealed = { ...endpoint.sealedHeaders };
  const names = [...endpoint.headerNames];
  for (const [name, value] of changes) {
    if (value === null) {
      delete sealed[name];
      if (names.includes(name)) names.splice(names.indexOf(name), 1);
    } else {
      sealed[name] = secrets.seal(value, headerPurpose(name), endpoint.id);
      if (!names.includes(name)) names.push(name);
    }
  }
  endpoint.sealedHeaders = sealed;
  endpoint.headerNames = names;
}

function dedupe(values: readonly string[]): string[] {
  return [...new Set(values)];
}
