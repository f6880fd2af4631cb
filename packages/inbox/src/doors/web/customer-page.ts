/**
 * The customer's page of an item (docs/web.md "The customer's page"), at /i/<id>: what the link in
 * every notice opens. Server-rendered, no script, in the customer's language; it shows the state, the
 * details and the conversation, and lets the customer reply, accept a time proposed and cancel,
 * through the same operations (send_message, accept_offer, cancel_item) as the API, so the same rules,
 * idempotency and refusals apply; a refusal is said in words on the page, with its status.
 *
 * The link carries a token (the page token of the mail, or the item's access token). On first open it
 * is swapped for a short-lived cookie scoped to this item's path and the browser is sent to the
 * address without it, so the token stays out of the history, of Referer headers (the answers to an
 * address with a token say Referrer-Policy: no-referrer) and of any cache (no-store).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Problem, cookieValue, problemFromZod, randomToken, serveAssets, setPageHeaders, staticAsset, type AnyOperation } from '@svc/shared';
import { loadProfile, readSettings, type DomainContext } from '../../domain/context.js';
import type { BusinessProfile } from '../../domain/catalogue/profile.js';
import { accessTokenMatches } from '../../domain/items/access-token.js';
import { statusView } from '../../domain/items/customer-items.js';
import { PAGE_TOKEN_PREFIX, customerPagePath, pageTokenMatches } from '../../domain/items/page-token.js';
import { readerOf, type Reader } from '../../domain/mail/reader-language.js';
import type { Caller, ItemRecord } from '../../domain/types.js';
import type { OperationContext } from '../../operations/context.js';
import { runOperation, type CallEnvelope, type RunnerDeps } from '../../operations/runner.js';
import { APP_STYLES } from './app-styles.js';
import { CUSTOMER_EN, CUSTOMER_PT, type CustomerTexts } from './customer-texts.js';
import { renderCustomerPage, renderLinkRefusal, type CustomerPageState } from './views/customer-page-view.js';

/** The page's session lasts a visit; the link in the mail opens it again. */
const SESSION_MS = 12 * 3_600_000;
const FORM_LIMIT_BYTES = 64 * 1024;
const ID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const ENVELOPE: CallEnvelope = { channel: 'customer_page', authorization: undefined, idempotencyKeyHeader: undefined, accessTokenHeader: undefined };
const DONE = new Set(['replied', 'cancelled', 'accepted']);
/** The page's own touches over the owner app's styles: the customer's messages to the right. */
const CUSTOMER_STYLES = '.card>h2:first-child{margin-top:0}.conversation li.mine{background:var(--ok-bg);margin-left:auto}.conversation .text{white-space:pre-wrap;margin:.25rem 0 0}';

export interface CustomerPageOptions {
  deps: RunnerDeps;
  operations: readonly AnyOperation<OperationContext>[];
}

interface PageEnvironment {
  deps: RunnerDeps;
  operations: ReadonlyMap<string, AnyOperation<OperationContext>>;
  secure: boolean;
  publicOrigin: string;
  cookie: string;
  styles: string;
}

export function textsOf(reader: Reader): CustomerTexts {
  return reader.lang === 'pt' ? CUSTOMER_PT : CUSTOMER_EN;
}

export function installCustomerPages(app: FastifyInstance, options: CustomerPageOptions): void {
  const publicUrl = new URL(options.deps.config.publicBaseUrl);
  const secure = publicUrl.protocol === 'https:';
  const styles = staticAsset('/i-assets', 'page.css', `${APP_STYLES}${CUSTOMER_STYLES}`);
  const env: PageEnvironment = {
    deps: options.deps,
    operations: new Map(options.operations.map((op) => [op.name, op])),
    secure,
    publicOrigin: publicUrl.origin,
    // __Secure- (not __Host-): the cookie is scoped to the item's own path.
    cookie: secure ? '__Secure-svc_item' : 'svc_item',
    styles: styles.path,
  };
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_request, body, done) => {
      done(null, new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8')));
    });
    serveAssets(scope, [styles]);
    scope.get('/i/:id', (request, reply) => openPage(env, request, reply));
    scope.post('/i/:id/reply', (request, reply) =>
      act(env, request, reply, (form, id) => ({ name: 'send_message', input: { item_id: id, message: form.get('message') ?? '', idempotency_key: formKey(form) }, done: 'replied' })),
    );
    scope.post('/i/:id/accept', (request, reply) =>
      act(env, request, reply, (form, id) => ({ name: 'accept_offer', input: { id, expected_version: versionOf(form), idempotency_key: formKey(form) }, done: 'accepted' })),
    );
    scope.post('/i/:id/cancel', (request, reply) =>
      act(env, request, reply, (form, id) => {
        if (form.get('confirm') !== '1') return 'confirm';
        const reason = form.get('reason')?.trim();
        return { name: 'cancel_item', input: { id, reason: reason ? reason : undefined, expected_version: versionOf(form), idempotency_key: formKey(form) }, done: 'cancelled' };
      }),
    );
  });
}

function formKey(form: URLSearchParams): string | undefined {
  const key = form.get('idempotency_key');
  return key ? key : undefined;
}

function versionOf(form: URLSearchParams): number | undefined {
  const version = Number(form.get('expected_version'));
  return Number.isSafeInteger(version) && version > 0 ? version : undefined;
}

function domainOf(env: PageEnvironment): DomainContext {
  return { store: env.deps.store, clock: env.deps.clock, receipts: env.deps.receipts, keys: env.deps.identity.keys };
}

function callerOf(itemId: string): Caller {
  return { kind: 'customer', actor: { kind: 'customer_human', id: null, name: null }, channel: 'customer_page', pageItem: itemId };
}

function sessionValue(env: PageEnvironment, itemId: string, expiresMs: number): string {
  return `${expiresMs}.${env.deps.identity.keys.hash('customer-page-session', `${itemId}.${expiresMs}`)}`;
}

/** The page's session from its cookie, when it holds for this item now. */
function sessionOf(env: PageEnvironment, request: FastifyRequest, itemId: string): string | null {
  const value = cookieValue(request.headers.cookie, env.cookie);
  if (!value) return null;
  const expiresMs = Number(value.slice(0, value.indexOf('.')));
  const nowMs = env.deps.clock.now();
  if (!Number.isSafeInteger(expiresMs) || expiresMs <= nowMs || expiresMs > nowMs + SESSION_MS) return null;
  return env.deps.identity.keys.matches('customer-page-session', `${itemId}.${expiresMs}`, value.slice(value.indexOf('.') + 1)) ? value : null;
}

function csrfOf(env: PageEnvironment, session: string): string {
  return env.deps.identity.keys.hash('customer-page-csrf', session);
}

function sameOrigin(env: PageEnvironment, request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (typeof origin === 'string') return origin === env.publicOrigin || origin === `${request.protocol}://${request.headers.host ?? ''}`;
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}

/**
 * Pages are never stored. An answer to an address that held a token (the swap's redirect, a refused
 * link) sends no referrer at all; the page itself, whose address holds none, keeps the pages'
 * `same-origin` (nothing to other sites), since a browser told no-referrer sends `Origin: null` with
 * the page's own forms, and the forms' origin check needs the real one.
 */
function send(reply: FastifyReply, status: number, lang: string, body: string, referrer: 'no-referrer' | 'same-origin' = 'same-origin'): FastifyReply {
  return setPageHeaders(reply.code(status), { cacheControl: 'no-store', robots: 'noindex, nofollow', language: lang }).header('referrer-policy', referrer).send(body);
}

async function readerFor(env: PageEnvironment, item: ItemRecord | null): Promise<{ profile: BusinessProfile; reader: Reader; t: CustomerTexts }> {
  const { profile } = await loadProfile(env.deps.store);
  const reader = readerOf(item?.contact?.locale, profile);
  return { profile, reader, t: textsOf(reader) };
}

async function refuseLink(env: PageEnvironment, reply: FastifyReply, item: ItemRecord | null, status: 401 | 404, why: 'wrong' | 'missing' | 'notFound'): Promise<FastifyReply> {
  const { profile, t } = await readerFor(env, item);
  return send(reply, status, t.lang, renderLinkRefusal({ t, business: profile.name, styles: env.styles, why }), 'no-referrer');
}

async function loadItem(request: FastifyRequest, env: PageEnvironment): Promise<ItemRecord | null> {
  const id = (request.params as { id: string }).id;
  return ID_PATTERN.test(id) ? env.deps.store.items.get(id) : null;
}

async function openPage(env: PageEnvironment, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const item = await loadItem(request, env);
  if (!item) return refuseLink(env, reply, null, 404, 'notFound');
  const query = request.query as Record<string, unknown>;
  const token = query.access_token;
  if (typeof token === 'string') {
    const keys = env.deps.identity.keys;
    const opens = token.startsWith(PAGE_TOKEN_PREFIX) ? pageTokenMatches(keys, item.id, token) : accessTokenMatches(token, item.accessTokenHash);
    if (!opens) return refuseLink(env, reply, item, 401, 'wrong');
    // The token is swapped for a cookie of this item's path, and the address loses it.
    const value = sessionValue(env, item.id, env.deps.clock.now() + SESSION_MS);
    const parts = [`${env.cookie}=${value}`, `Path=${customerPagePath(item.id)}`, `Max-Age=${SESSION_MS / 1000}`, 'SameSite=Lax', 'HttpOnly'];
    if (env.secure) parts.push('Secure');
    reply.header('set-cookie', parts.join('; '));
    return reply.code(303).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(customerPagePath(item.id), 303);
  }
  const session = sessionOf(env, request, item.id);
  if (!session) return refuseLink(env, reply, item, 401, 'missing');
  const done = typeof query.done === 'string' && DONE.has(query.done) ? (query.done as CustomerPageState['done']) : undefined;
  return renderFor(env, reply, item, session, { status: 200, done });
}

async function renderFor(
  env: PageEnvironment,
  reply: FastifyReply,
  item: ItemRecord,
  session: string,
  state: { status: number; done?: CustomerPageState['done']; problem?: string | undefined; draft?: string | undefined },
): Promise<FastifyReply> {
  const ctx = domainOf(env);
  const { profile, reader, t } = await readerFor(env, item);
  const [view, settings] = await Promise.all([statusView(ctx, item, callerOf(item.id).actor), readSettings(env.deps.store)]);
  const body = renderCustomerPage({
    t,
    reader,
    business: profile,
    settings,
    item,
    view,
    csrf: csrfOf(env, session),
    formKey: () => `page-${randomToken(12)}`,
    styles: env.styles,
    nowMs: env.deps.clock.now(),
    done: state.done,
    problem: state.problem,
    draft: state.draft,
  });
  return send(reply, state.status, t.lang, body);
}

type Action = { name: string; input: Record<string, unknown>; done: NonNullable<CustomerPageState['done']> } | 'confirm';

async function act(env: PageEnvironment, request: FastifyRequest, reply: FastifyReply, make: (form: URLSearchParams, id: string) => Action): Promise<FastifyReply> {
  const item = await loadItem(request, env);
  if (!item) return refuseLink(env, reply, null, 404, 'notFound');
  const session = sessionOf(env, request, item.id);
  if (!session) return refuseLink(env, reply, item, 401, 'missing');
  const form = request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
  const { t } = await readerFor(env, item);
  const csrf = form.get('csrf') ?? '';
  if (!sameOrigin(env, request) || !env.deps.identity.keys.matches('customer-page-csrf', session, csrf)) return renderFor(env, reply, item, session, { status: 403, problem: t.problem.forbidden });
  const action = make(form, item.id);
  const draft = form.get('message') ?? undefined;
  if (action === 'confirm') return renderFor(env, reply, item, session, { status: 422, problem: t.problem.confirm });
  const op = env.operations.get(action.name);
  if (!op) throw new Error(`The customer page calls ${action.name}, which the operation table does not have.`);
  try {
    const parsed = op.input.safeParse(Object.fromEntries(Object.entries(action.input).filter(([, value]) => value !== undefined)));
    if (!parsed.success) throw problemFromZod(parsed.error);
    // The page's keys are scoped like an anonymous caller's: its own door and the visitor's address.
    await runOperation(env.deps, op, parsed.data as Record<string, unknown>, { ...ENVELOPE, clientAddress: request.ip }, { caller: callerOf(item.id), standing: undefined });
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    const fresh = (await env.deps.store.items.get(item.id)) ?? item;
    return renderFor(env, reply, fresh, session, { status: error.status, problem: t.problem[error.code] ?? t.problemOther, draft });
  }
  return reply.code(303).header('cache-control', 'no-store').redirect(`${customerPagePath(item.id)}?done=${action.done}`, 303);
}
