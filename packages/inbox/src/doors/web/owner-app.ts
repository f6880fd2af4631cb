/**
 * The owner app at /app (docs/web.md): server-rendered pages that work without a script, made
 * livelier by one small module (client/owner-app.ts). Sign-in with the owner key opens a session;
 * every page after that reads, and every form writes, through the operation table as the owner on
 * channel owner_ui. Writes are POST forms with a CSRF token and an idempotency key, answered by a
 * redirect (303) to the page they came from, or by the page again with what went wrong.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Problem, acceptsCoding, answerReplayOf, appendVary, builtAsset, cookieValue, randomToken, serveAssets, setPageHeaders, staticAsset, type AnswerReplay, type AnyOperation, type Html } from '@svc/shared';
import { timingSafeEqual } from 'node:crypto';
import { sessionHoldsNow, signIn, signOut, signOutEverywhere, SESSION_ABSOLUTE_MS, type OwnerSession } from '../../domain/access/owner-sessions.js';
import type { OperationContext } from '../../operations/context.js';
import type { RunnerDeps } from '../../operations/runner.js';
import type { ChangeTopic } from '../../store/store.js';
import { APP_STYLES } from './app-styles.js';
import {
  callAs,
  cookieNames,
  csrfHolds,
  languageOf,
  localAppPath,
  messagesOf,
  newFormKey,
  sameOrigin,
  sessionOf,
  setCookie,
  type AppCall,
  type AppEnvironment,
  type AppLanguage,
  type ProfileSummary,
} from './app-kit.js';
import type { AppRoutes, PageRenderer } from './app-routes.js';
import { KeptPages, pageOf, servedAgain, servedPage, type KeptPage, type PageKey, type ServedPage } from './kept-pages.js';
import { serveLiveEvents } from './live-events.js';
import type { Messages } from './messages-en.js';
import { inboxQueryOf, renderInbox } from './views/inbox-page.js';
import { renderItemPage, type OwnerItem } from './views/item-page.js';
import { notice, renderLayout, type LayoutAssets, type PageFrame } from './views/layout.js';
import { moveInputOf } from './views/move-forms.js';
import { problemNotice } from './views/problem-notice.js';
import { renderSignIn } from './views/sign-in.js';
import { installSetupPages } from './setup-routes.js';
import { installPushRoutes } from './push-routes.js';
import { firstWordsOfItems, installDayPages } from './day-pages.js';
import type { ListedItem } from './views/item-summary.js';
import { fullSlotOf } from '../../domain/availability/booking-time.js';
import { countAwaitingOwner } from '../../domain/notifications/owner-notices.js';

/** Forms of the app are small; a rule or a long reply fits well within this. */
const FORM_LIMIT_BYTES = 256 * 1024;
/** The sign-in form's token lives as long as a person may take to find the key. */
const SIGN_IN_FORM_SEC = 3_600;
/** Pages of a signed-in owner are never stored by a browser or a proxy. */
const PRIVATE = 'private, no-store';

export interface OwnerAppOptions {
  deps: RunnerDeps;
  operations: readonly AnyOperation<OperationContext>[];
}

const CLIENT_SCRIPT = new URL('../../../dist/doors/web/client/owner-app.js', import.meta.url);

export function installOwnerApp(app: FastifyInstance, options: OwnerAppOptions): void {
  const publicUrl = new URL(options.deps.config.publicBaseUrl);
  const secure = publicUrl.protocol === 'https:';
  const env: AppEnvironment = {
    deps: options.deps,
    operations: new Map(options.operations.map((op) => [op.name, op])),
    secure,
    cookies: cookieNames(secure),
    publicOrigin: publicUrl.origin,
  };
  const assets: LayoutAssets = {
    styles: staticAsset('/app/assets', 'app.css', APP_STYLES),
    script: builtAsset('/app/assets', 'owner-app.js', CLIENT_SCRIPT),
  };
  if (!assets.script) app.log.warn('The owner app script is not built (npm run build); the app works without it, but nothing appears live.');

  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_request, body, done) => {
      done(null, new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8')));
    });
    serveAssets(scope, [assets.styles, assets.script]);
    const keptPages = new KeptPages();
    const routes = buildRoutes(scope, env, assets, keptPages, answerReplayOf(app));
    installEntryRoutes(scope, env, assets, keptPages);
    installDayPages(routes);
    installInboxPages(routes);
    installSetupPages(routes);
    scope.get('/app/live', (request, reply) => serveLiveEvents(env, request, reply));
    installPushRoutes(scope, env);
  });
}

interface PageContext {
  lang: AppLanguage;
  t: Messages;
  businessName: string;
  here: string;
}

function send(reply: FastifyReply, assets: LayoutAssets, ctx: PageContext, csrf: string | null, page: PageFrame, status = 200, notices: Html | null = null): FastifyReply {
  return sendText(reply, ctx.lang, status, renderLayout({ lang: ctx.lang, t: ctx.t, businessName: ctx.businessName, csrf, here: ctx.here, assets }, page, notices));
}

function sendText(reply: FastifyReply, lang: AppLanguage, status: number, text: string | Buffer): FastifyReply {
  // Encoded once here: a text body is measured for its length and encoded again when written.
  return setPageHeaders(reply.code(status), { cacheControl: PRIVATE, robots: 'noindex, nofollow', language: lang }).send(typeof text === 'string' ? Buffer.from(text) : text);
}

/** A kept page's serving: one already in gzip says so itself (the compression hook leaves it as it is). */
function sendServed(reply: FastifyReply, lang: AppLanguage, status: number, served: ServedPage): FastifyReply {
  if (served.gzip) {
    reply.header('content-encoding', 'gzip');
    appendVary(reply, 'Accept-Encoding');
  }
  return sendText(reply, lang, status, served.body);
}

function formOf(request: FastifyRequest): URLSearchParams {
  return request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
}

async function callContext(env: AppEnvironment, session: OwnerSession, request: FastifyRequest, formKey: () => string = newFormKey): Promise<AppCall> {
  const { profile } = await callAs<{ profile: ProfileSummary }>(env, session, 'get_profile', {});
  const lang = languageOf(env, request, profile.languages);
  return {
    session,
    lang,
    t: messagesOf(lang),
    profile,
    call: (name, input = {}) => callAs(env, session, name, input),
    formKey,
    here: request.url,
  };
}

/** `?lang=` remembered for the next pages (a plain preference, readable by nobody else). */
function rememberLanguage(env: AppEnvironment, request: FastifyRequest, reply: FastifyReply, lang: AppLanguage): void {
  const asked = (request.query as Record<string, unknown> | undefined)?.lang;
  if (typeof asked === 'string' && asked === lang) setCookie(reply, env.cookies.language, lang, { secure: env.secure, maxAgeSec: 365 * 86_400 });
}

const DONE_KEYS = new Set(['saved', 'moved', 'replied', 'signed-in']);

function doneNotice(t: Messages, request: FastifyRequest): Html | null {
  const done = (request.query as Record<string, unknown> | undefined)?.done;
  return typeof done === 'string' && DONE_KEYS.has(done) ? notice('ok', done === 'saved' ? t.setup.saved : t.done) : null;
}

function buildRoutes(scope: FastifyInstance, env: AppEnvironment, assets: LayoutAssets, keptPages: KeptPages, replay: AnswerReplay | undefined): AppRoutes {
  const forbidden = (reply: FastifyReply, request: FastifyRequest): FastifyReply => {
    const t = messagesOf(languageOf(env, request, []));
    return send(reply, assets, { lang: t.lang as AppLanguage, t, businessName: t.appName, here: '/app' }, null, {
      title: t.forbidden.title,
      section: 'none',
      body: notice('bad', `${t.forbidden.title}. ${t.forbidden.body}`),
    }, 403);
  };
  /** A page's text and status (a page of a missing thing is a 404 page), the language remembered when it renders. */
  const renderText = async (app: AppCall, request: FastifyRequest, reply: FastifyReply, renderer: PageRenderer, problem: Problem | null): Promise<{ status: number; text: string }> => {
    // The count of what waits for the owner goes in the title (docs/web.md "Push": the tab shows it).
    const waiting = await countAwaitingOwner({ store: env.deps.store, clock: env.deps.clock });
    const layout = { lang: app.lang, t: app.t, businessName: app.profile.name, csrf: app.session.csrfToken, here: app.here, assets, waiting };
    const problemHtml = problem ? problemNotice(app.t, problem) : null;
    try {
      const page = await renderer(app, request, problemHtml);
      rememberLanguage(env, request, reply, app.lang);
      return { status: problem ? problem.status : page.status ?? 200, text: renderLayout(layout, page, problem ? null : doneNotice(app.t, request)) };
    } catch (error) {
      if (!(error instanceof Problem) || error.status !== 404) throw error;
      return { status: 404, text: renderLayout(layout, { title: app.t.notFound, section: 'none', body: notice('bad', app.t.notFound) }) };
    }
  };
  const render = async (app: AppCall, request: FastifyRequest, reply: FastifyReply, renderer: PageRenderer, problem: Problem | null): Promise<FastifyReply> => {
    const { status, text } = await renderText(app, request, reply, renderer, problem);
    return sendText(reply, app.lang, status, text);
  };
  /**
   * A kept page may be served again in front of the framework, to the very same cookies
   * (answer-replay.ts "offerPrivately"; docs/web.md "Owner pages replayed"), while what this route
   * checks still says the same at that moment: the session open, not due its touch, the page kept
   * under the same stamp in the same minute. Each serving gets fresh form keys.
   */
  const offerAgain = (request: FastifyRequest, session: OwnerSession, topic: ChangeTopic, key: PageKey, page: KeptPage, served: ServedPage): void => {
    if (!replay) return;
    const { store, clock } = env.deps;
    replay.offerPrivately(request, {
      holds: () => {
        const nowMs = clock.now();
        const stamp = store.changes.stamp([topic]);
        return typeof stamp === 'string' && sessionHoldsNow(store, session.tokenHash, nowMs) && keptPages.stillServes(key, page, stamp, nowMs);
      },
      remake: page.bytes ? undefined : { coding: served.gzip ? 'gzip' : undefined, body: () => servedAgain(page, served) },
    });
  };
  /** A kept page when one holds for this session, address, language and moment; else the page rendered, and kept when it is a 200. */
  const renderKept = async (session: OwnerSession, request: FastifyRequest, reply: FastifyReply, renderer: PageRenderer, topic: ChangeTopic): Promise<FastifyReply> => {
    const key = { tokenHash: session.tokenHash, url: request.url, languageCookie: cookieValue(request.headers.cookie, env.cookies.language) };
    // Taken before the page's reads: a write landing during the render leaves it under a stamp no later one equals.
    const stamp = await env.deps.store.changes.stamp([topic]);
    const nowMs = env.deps.clock.now();
    const takesGzip = acceptsCoding(request.headers['accept-encoding'], 'gzip');
    const kept = keptPages.get(key, stamp, nowMs);
    if (kept) {
      rememberLanguage(env, request, reply, kept.lang);
      const served = await servedPage(kept, takesGzip);
      offerAgain(request, session, topic, key, kept, served);
      return sendServed(reply, kept.lang, 200, served);
    }
    const app = await callContext(env, session, request, () => keptPages.formKeySlot);
    const { status, text } = await renderText(app, request, reply, renderer, null);
    if (status !== 200) return sendServed(reply, app.lang, status, await servedPage(pageOf(app.lang, text, keptPages.formKeySlot), false));
    const page = keptPages.keep(key, stamp, nowMs, app.lang, text);
    const served = await servedPage(page, takesGzip);
    offerAgain(request, session, topic, key, page, served);
    return sendServed(reply, app.lang, status, served);
  };
  return {
    env,
    page(path, renderer, options) {
      scope.get(path, async (request, reply) => {
        // The session first, every time: an ended session is sent to sign in, never given a kept page.
        const session = await sessionOf(env, request);
        if (!session) return reply.code(303).header('cache-control', 'no-store').redirect(`/app/sign-in?next=${encodeURIComponent(localAppPath(request.url))}`, 303);
        if (options?.keep) return renderKept(session, request, reply, renderer, options.keep);
        return render(await callContext(env, session, request), request, reply, renderer, null);
      });
    },
    action(path, act, renderer) {
      scope.post(path, async (request, reply) => {
        const form = formOf(request);
        const session = await sessionOf(env, request);
        if (!session || !csrfHolds(env, request, form)) return forbidden(reply, request);
        const app = await callContext(env, session, request);
        try {
          const outcome = await act(app, form, request);
          if (typeof outcome === 'string') return reply.code(303).header('cache-control', 'no-store').redirect(outcome, 303);
          return send(reply, assets, { lang: app.lang, t: app.t, businessName: app.profile.name, here: app.here }, session.csrfToken, outcome);
        } catch (error) {
          if (!(error instanceof Problem)) throw error;
          return render(app, request, reply, renderer, error);
        }
      });
    },
  };
}

function installEntryRoutes(scope: FastifyInstance, env: AppEnvironment, assets: LayoutAssets, keptPages: KeptPages): void {
  const signInPage = async (request: FastifyRequest, reply: FastifyReply, message: { kind: 'ok' | 'bad'; text: string } | null, status = 200, next = '/app/today') => {
    const t = messagesOf(languageOf(env, request, []));
    // The form's token is also a cookie: a page of another site can send neither (login CSRF).
    const token = randomToken(16);
    setCookie(reply, env.cookies.signIn, token, { secure: env.secure, maxAgeSec: SIGN_IN_FORM_SEC });
    return send(reply, assets, { lang: t.lang as AppLanguage, t, businessName: t.appName, here: request.url }, null, renderSignIn(t, token, next, message), status);
  };

  scope.get('/app', async (_request, reply) => reply.code(303).redirect('/app/today', 303));

  scope.get('/app/sign-in', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    if (await sessionOf(env, request)) return reply.code(303).redirect(localAppPath(String(query.next ?? '')), 303);
    const t = messagesOf(languageOf(env, request, []));
    const message = query.out === '1' ? { kind: 'ok' as const, text: t.signedOut } : query.out === 'all' ? { kind: 'ok' as const, text: t.signedOutEverywhere } : null;
    return signInPage(request, reply, message, 200, localAppPath(typeof query.next === 'string' ? query.next : undefined));
  });

  scope.post('/app/sign-in', async (request, reply) => {
    const form = formOf(request);
    const t = messagesOf(languageOf(env, request, []));
    const next = localAppPath(form.get('next'));
    const cookie = cookieValue(request.headers.cookie, env.cookies.signIn) ?? '';
    const sent = form.get('signin_token') ?? '';
    const tokenHolds = cookie.length > 0 && cookie.length === sent.length && timingSafeEqual(Buffer.from(cookie), Buffer.from(sent));
    if (!sameOrigin(env, request) || !tokenHolds) return signInPage(request, reply, { kind: 'bad', text: t.signIn.expired }, 403, next);
    try {
      const userAgent = request.headers['user-agent'];
      const { token } = await signIn(env.deps.store, form.get('owner_key') ?? '', env.deps.clock.now(), typeof userAgent === 'string' ? userAgent : undefined);
      setCookie(reply, env.cookies.session, token, { secure: env.secure, maxAgeSec: Math.floor(SESSION_ABSOLUTE_MS / 1000) });
      setCookie(reply, env.cookies.signIn, '', { secure: env.secure, maxAgeSec: 0 });
      return reply.code(303).header('cache-control', 'no-store').redirect(next, 303);
    } catch (error) {
      if (!(error instanceof Problem) || error.code !== 'unauthorized') throw error;
      return signInPage(request, reply, { kind: 'bad', text: t.signIn.failed }, 401, next);
    }
  });

  const signOutRoute = (path: string, everywhere: boolean) =>
    scope.post(path, async (request, reply) => {
      const form = formOf(request);
      const session = await sessionOf(env, request);
      if (session && csrfHolds(env, request, form)) {
        if (everywhere) await signOutEverywhere(env.deps.store);
        else await signOut(env.deps.store, session);
        if (everywhere) keptPages.forgetAll();
        else keptPages.forgetSession(session.tokenHash);
      } else if (session) {
        const t = messagesOf(languageOf(env, request, []));
        return send(reply, assets, { lang: t.lang as AppLanguage, t, businessName: t.appName, here: '/app' }, null, {
          title: t.forbidden.title,
          section: 'none',
          body: notice('bad', `${t.forbidden.title}. ${t.forbidden.body}`),
        }, 403);
      }
      setCookie(reply, env.cookies.session, '', { secure: env.secure, maxAgeSec: 0 });
      return reply.code(303).header('cache-control', 'no-store').redirect(`/app/sign-in?out=${everywhere ? 'all' : '1'}`, 303);
    });
  signOutRoute('/app/sign-out', false);
  signOutRoute('/app/sign-out-everywhere', true);
}

function installInboxPages(routes: AppRoutes): void {
  const now = () => routes.env.deps.clock.now();
  const { store, clock } = routes.env.deps;
  const firstWords = (items: readonly ListedItem[]) => firstWordsOfItems(store, items);
  routes.page('/app/inbox', (app, request) => renderInbox(app, inboxQueryOf(request.query as Record<string, unknown>), now(), firstWords), { keep: 'owner_pages' });

  const fullSlot = (itemId: string) => fullSlotOf({ store, clock }, itemId);
  const itemPage: PageRenderer = (app, request, problem) => renderItemPage(app, (request.params as { id: string }).id, app.session.csrfToken, now(), problem, fullSlot);
  routes.page('/app/items/:id', itemPage, { keep: 'owner_pages' });

  routes.action(
    '/app/items/:id/move',
    async (app, form, request) => {
      const id = (request.params as { id: string }).id;
      const item = await app.call<OwnerItem>('get_item', { id });
      const event = form.get('event') ?? '';
      const transition = item.transitions.find((candidate) => candidate.event === event);
      const input = transition ? moveInputOf(app, item, transition, form) : undefined;
      const version = Number(form.get('expected_version'));
      const reason = form.get('reason')?.trim();
      await app.call('transition_item', {
        id,
        event,
        input,
        reason: reason ? reason : undefined,
        expected_version: Number.isSafeInteger(version) ? version : undefined,
        idempotency_key: form.get('idempotency_key') ?? undefined,
      });
      return `/app/items/${encodeURIComponent(id)}?done=moved`;
    },
    itemPage,
  );

  routes.action(
    '/app/items/:id/reply',
    async (app, form, request) => {
      const id = (request.params as { id: string }).id;
      await app.call('reply', { id, message: form.get('message') ?? '', internal: form.get('internal') === '1', idempotency_key: form.get('idempotency_key') ?? undefined });
      return `/app/items/${encodeURIComponent(id)}?done=replied`;
    },
    itemPage,
  );

  routes.action(
    '/app/items/:id/flags',
    async (app, form, request) => {
      const id = (request.params as { id: string }).id;
      const needsHuman = form.get('needsHuman');
      const priority = form.get('priority');
      await app.call('set_item_flags', {
        id,
        needsHuman: needsHuman === null ? undefined : needsHuman === '1',
        priority: priority === null ? undefined : Number(priority),
        idempotency_key: form.get('idempotency_key') ?? undefined,
      });
      return `/app/items/${encodeURIComponent(id)}?done=saved`;
    },
    itemPage,
  );
}
