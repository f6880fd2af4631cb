/**
 * POST /check from a page's form (docs/web.md): the same route agents call with JSON also takes an
 * HTML form (application/x-www-form-urlencoded), so "check a site" and "check again" work without a
 * script. A form's answer is for a person: a 303 to the result page, or a page saying why not (the
 * operation's own refusal: a site that cannot be checked, too many checks asked for). Only /check
 * reads forms; every other route still refuses them with 415, as before. A form sent from another
 * site is refused (403) and asks for nothing: the directory has no session to protect, but it will
 * not let other sites spend a visitor's budget of checks or its crawler.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Problem } from '@svc/shared';

export const CHECK_FORM_PATH = '/check';
const FORM_LIMIT_BYTES = 16 * 1024;

export interface CheckFormOptions {
  /** The public origin (scheme, host and port) of the directory. */
  publicOrigin: string;
  /** Answers a form that may ask for a check: a redirect or a page. */
  answer(request: FastifyRequest, reply: FastifyReply, form: URLSearchParams): Promise<FastifyReply>;
  /** Answers a form sent from another site. */
  foreign(request: FastifyRequest, reply: FastifyReply, form: URLSearchParams): FastifyReply;
  /** The page for a refusal made before the form was read (a burst limit, a body too large): HTML. */
  refusalPage(request: FastifyRequest, reply: FastifyReply, status: number, message: string): string;
}

export function isCheckForm(request: FastifyRequest): request is FastifyRequest & { body: URLSearchParams } {
  return request.method === 'POST' && request.body instanceof URLSearchParams;
}

/** A form sent by a page of this directory: the browser's Sec-Fetch-Site and Origin say so when it sends them. */
export function sentFromHere(request: FastifyRequest, publicOrigin: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') return false;
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return true;
  return origin === publicOrigin || origin === `${request.protocol}://${request.headers.host ?? ''}`;
}

export function installCheckForm(app: FastifyInstance, options: CheckFormOptions): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (request, body, done) => {
    if (request.routeOptions.url !== CHECK_FORM_PATH || request.method !== 'POST') {
      done(new Problem('unsupported_media_type', 'Send the body as application/json.'));
      return;
    }
    done(null, new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8')));
  });

  // After the burst limits (their hook is installed first), before the operation's own route reads a JSON body.
  // Callback hooks: every request passes both, and a promise each cost more than the checks.
  // A form is answered here (the route does not run: done is not called).
  app.addHook('preHandler', (request, reply, done) => {
    if (!isCheckForm(request)) return done();
    if (!sentFromHere(request, options.publicOrigin)) return void options.foreign(request, reply, request.body);
    options.answer(request, reply, request.body).catch((error: Error) => done(error));
  });

  // A refusal answered as a problem document before the form was handled (a burst limit) reaches a person as a page.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.method !== 'POST' || request.routeOptions.url !== CHECK_FORM_PATH || reply.statusCode < 400) return done(null, payload);
    if (!String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return done(null, payload);
    if (!String(reply.getHeader('content-type') ?? '').startsWith('application/problem+json')) return done(null, payload);
    let message = '';
    try {
      const problem = JSON.parse(String(payload)) as { detail?: string; title?: string };
      message = problem.detail ?? problem.title ?? '';
    } catch {
      message = '';
    }
    done(null, options.refusalPage(request, reply, reply.statusCode, message));
  });
}
