/**
 * The frame of the owner app (docs/web.md): who is signed in (the session cookie), the CSRF check on
 * every write, the language, and calls into the operation table. Every read and write of the app is
 * an operation of the table run by the same runner as REST and MCP, as the owner (actor `owner`) on
 * channel `owner_ui`: events, webhooks, rules and idempotency apply unchanged.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Problem, cookieValue, jsonSchemaOf, objectProperties, pickLanguage, problemFromZod, randomToken, type AnyOperation } from '@svc/shared';
import { csrfTokenMatches, resumeSession, type OwnerSession } from '../../domain/access/owner-sessions.js';
import type { OperationContext } from '../../operations/context.js';
import { runOperation, type CallEnvelope, type RunnerDeps } from '../../operations/runner.js';
import { en, type Messages } from './messages-en.js';
import { pt } from './messages-pt.js';

export const APP_LANGUAGES = ['en', 'pt'] as const;
export type AppLanguage = (typeof APP_LANGUAGES)[number];
const MESSAGES: Record<AppLanguage, Messages> = { en, pt };

/** The cookie names: `__Host-` (Secure, Path=/, no Domain: no subdomain can set or shadow it) when the app is served over https. */
export interface CookieNames {
  session: string;
  signIn: string;
  language: string;
}

export function cookieNames(secure: boolean): CookieNames {
  return secure
    ? { session: '__Host-svc_owner', signIn: '__Host-svc_signin', language: '__Host-svc_lang' }
    : { session: 'svc_owner', signIn: 'svc_signin', language: 'svc_lang' };
}

export interface CookieOptions {
  secure: boolean;
  /** Seconds; 0 deletes the cookie. */
  maxAgeSec: number;
  httpOnly?: boolean;
}

export function setCookie(reply: FastifyReply, name: string, value: string, options: CookieOptions): void {
  const parts = [`${name}=${value}`, 'Path=/', `Max-Age=${options.maxAgeSec}`, 'SameSite=Lax'];
  if (options.httpOnly ?? true) parts.push('HttpOnly');
  if (options.secure) parts.push('Secure');
  // Fastify appends each Set-Cookie to the ones already set.
  reply.header('set-cookie', parts.join('; '));
}

export interface ProfileSummary {
  name: string;
  timeZone: string;
  currency: string;
  languages: string[];
}

export interface AppEnvironment {
  deps: RunnerDeps;
  operations: ReadonlyMap<string, AnyOperation<OperationContext>>;
  secure: boolean;
  cookies: CookieNames;
  /** Origins a form may come from: the public URL's, and the one the request names itself by. */
  publicOrigin: string;
}

/** What every page and action of a signed-in owner gets. */
export interface AppCall {
  session: OwnerSession;
  lang: AppLanguage;
  t: Messages;
  profile: ProfileSummary;
  /** Runs an operation of the table as the owner in the app; its input is validated by the operation's own schema. */
  call<T = unknown>(name: string, input?: Record<string, unknown>): Promise<T>;
  /** A fresh idempotency key for a form: sending the same form twice makes one change. */
  formKey(): string;
  /** The URL of this request (path and query), for links back to it. */
  here: string;
}

const OWNER_APP_ENVELOPE: CallEnvelope = {
  channel: 'owner_ui',
  authorization: undefined,
  idempotencyKeyHeader: undefined,
  accessTokenHeader: undefined,
};

const takesIdempotencyKey = new WeakMap<AnyOperation<OperationContext>, boolean>();

export async function callAs<T>(env: AppEnvironment, session: OwnerSession, name: string, input: Record<string, unknown>): Promise<T> {
  const op = env.operations.get(name);
  if (!op) throw new Error(`The owner app calls ${name}, which the operation table does not have.`);
  let takesKey = takesIdempotencyKey.get(op);
  if (takesKey === undefined) {
    takesKey = 'idempotency_key' in objectProperties(jsonSchemaOf(op.input, 'input'));
    takesIdempotencyKey.set(op, takesKey);
  }
  const { idempotency_key: key, ...rest } = input;
  const parsed = op.input.safeParse(takesKey && typeof key === 'string' && key !== '' ? { ...rest, idempotency_key: key } : rest);
  if (!parsed.success) throw problemFromZod(parsed.error);
  const outcome = await runOperation(env.deps, op, parsed.data as Record<string, unknown>, OWNER_APP_ENVELOPE, { caller: session.caller, standing: undefined });
  return outcome.body as T;
}

export function languageOf(env: AppEnvironment, request: FastifyRequest, businessLanguages: readonly string[]): AppLanguage {
  const asked = (request.query as Record<string, unknown> | undefined)?.lang;
  return pickLanguage(APP_LANGUAGES, typeof asked === 'string' ? asked : undefined, cookieValue(request.headers.cookie, env.cookies.language), ...businessLanguages);
}

export function messagesOf(lang: AppLanguage): Messages {
  return MESSAGES[lang];
}

export async function sessionOf(env: AppEnvironment, request: FastifyRequest): Promise<OwnerSession | null> {
  return resumeSession(env.deps.store, cookieValue(request.headers.cookie, env.cookies.session), env.deps.clock.now());
}

/**
 * A write comes from the app's own pages: when the browser says where the form came from (Origin,
 * or Sec-Fetch-Site), it must be this origin. Browsers send one of them on every cross-site POST;
 * a client that sends neither is not a browser a page could have steered.
 */
export function sameOrigin(env: AppEnvironment, request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (typeof origin === 'string') {
    const own = new Set([env.publicOrigin, `${request.protocol}://${request.headers.host ?? ''}`]);
    return own.has(origin);
  }
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}

/** The CSRF check of a signed-in write: same origin, and the session's token in the form. */
export function csrfHolds(env: AppEnvironment, request: FastifyRequest, form: URLSearchParams): boolean {
  const token = cookieValue(request.headers.cookie, env.cookies.session);
  return token !== undefined && sameOrigin(env, request) && csrfTokenMatches(token, form.get('csrf'));
}

const FORM_KEY_PREFIX = 'app-';
/** Random bytes of a form key: a multiple of three, so keys drawn together are cut apart without padding. */
const FORM_KEY_BYTES = 12;
const FORM_KEY_RANDOM_CHARS = (FORM_KEY_BYTES / 3) * 4;
/** Every form key's length, in characters (one byte each: base64url). */
export const FORM_KEY_LENGTH = FORM_KEY_PREFIX.length + FORM_KEY_RANDOM_CHARS;

export function newFormKey(): string {
  return `${FORM_KEY_PREFIX}${randomToken(FORM_KEY_BYTES)}`;
}

/** `count` fresh form keys, each as newFormKey makes it, drawn from the random source in one go. */
export function newFormKeys(count: number): string[] {
  const random = count > 0 ? randomToken(FORM_KEY_BYTES * count) : '';
  const keys: string[] = [];
  for (let at = 0; at < random.length; at += FORM_KEY_RANDOM_CHARS) keys.push(FORM_KEY_PREFIX + random.slice(at, at + FORM_KEY_RANDOM_CHARS));
  return keys;
}

/** A local path of the app to go back to, never another site (no open redirect). */
export function localAppPath(value: string | null | undefined, fallback = '/app/today'): string {
  if (typeof value !== 'string' || !/^\/app(\/[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*)?$/.test(value) || value.includes('//') || value.includes('/..') || value.includes('\\') || value.length > 1000) return fallback;
  return value;
}

export function problemOf(error: unknown): Problem {
  if (error instanceof Problem) return error;
  throw error;
}
