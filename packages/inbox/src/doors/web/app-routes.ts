/**
 * How the owner app's screens are mounted: a page for a signed-in owner, and a form's target. The
 * owner app implements it (owner-app.ts); the setup screens install themselves through it.
 */
import type { FastifyRequest } from 'fastify';
import type { Html } from '@svc/shared';
import type { ChangeTopic } from '../../store/store.js';
import type { AppCall, AppEnvironment } from './app-kit.js';
import type { PageFrame } from './views/layout.js';

/** A page of a signed-in owner: what it renders, given the call context. */
export type PageRenderer = (app: AppCall, request: FastifyRequest, problem: Html | null) => Promise<PageFrame>;

export interface AppRoutes {
  env: AppEnvironment;
  /**
   * Serves a page to a signed-in owner (or sends them to sign in). `keep`: the page reads only the
   * tables of this change topic, the clock to the minute and the request, so its rendered text is
   * kept while that topic's stamp holds (kept-pages.ts).
   */
  page(path: string, render: PageRenderer, options?: { keep?: ChangeTopic }): void;
  /**
   * A form's target: checks the session and CSRF, runs `act`, then redirects to what it returns;
   * an operation's refusal renders `page` again with it (and the refusal's status).
   */
  action(path: string, act: (app: AppCall, form: URLSearchParams, request: FastifyRequest) => Promise<string | PageFrame>, page: PageRenderer): void;
}
