/**
 * GET /app/live: server-sent events for the open page (docs/web.md "Live"). It reads the event
 * stream through list_events as the signed-in owner, once a second while the page is open, from the
 * moment the page was rendered (or from Last-Event-ID after a reconnect), and tells the page what
 * moved; the page then fetches itself again and swaps the parts that changed. It ends when the
 * session does (sign-out, expiry, a revoked key).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isUlid } from '@svc/shared';
import { resumeSession } from '../../domain/access/owner-sessions.js';
import { callAs, languageOf, messagesOf, sessionOf, type AppEnvironment } from './app-kit.js';
import { typeLabel } from './views/item-summary.js';
import { cookieValue } from '@svc/shared';

const POLL_MS = 1_000;
/** A comment line now and then keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 25_000;
/** How far back a page's render time may reach: older is read as now. */
const MAX_LOOKBACK_MS = 10 * 60_000;

interface StreamEvent {
  id: string;
  type: string;
  timestamp: string;
  data: { id: string; type: string; state: string; version: number; sandbox: boolean };
}

export async function serveLiveEvents(env: AppEnvironment, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const session = await sessionOf(env, request);
  if (!session) {
    await reply.code(401).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('signed out');
    return;
  }
  const query = request.query as Record<string, unknown>;
  const nowMs = env.deps.clock.now();
  const lastEventId = request.headers['last-event-id'];
  let cursor: string | undefined = typeof lastEventId === 'string' && isUlid(lastEventId) ? lastEventId : undefined;
  const sinceMs = typeof query.since === 'string' ? Date.parse(query.since) : NaN;
  const since = new Date(Number.isFinite(sinceMs) && nowMs - sinceMs < MAX_LOOKBACK_MS && sinceMs <= nowMs ? sinceMs : nowMs).toISOString();
  const profile = await callAs<{ profile: { languages: string[] } }>(env, session, 'get_profile', {});
  const t = messagesOf(languageOf(env, request, profile.profile.languages));
  const token = cookieValue(request.headers.cookie, env.cookies.session);

  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-accel-buffering': 'no',
  });
  raw.write('retry: 2000\n\n');

  let closed = false;
  let lastWrite = Date.now();
  const poll = async (): Promise<void> => {
    // The session may have ended since the stream opened: then the stream ends too.
    const still = await resumeSession(env.deps.store, token, env.deps.clock.now());
    if (!still) return finish();
    for (let page = 0; page < 10 && !closed; page++) {
      const answer = await callAs<{ events: StreamEvent[]; next_cursor: string | null }>(env, still, 'list_events', cursor ? { cursor, limit: 100 } : { since, limit: 100 });
      for (const event of answer.events) {
        const data = {
          event: event.type,
          item: event.data.id,
          itemType: event.data.type,
          state: event.data.state,
          sandbox: event.data.sandbox,
          label: event.type.endsWith('.create') ? t.inbox.newItem(typeLabel(t, event.data.type)) : t.inbox.changed,
        };
        raw.write(`id: ${event.id}\nevent: change\ndata: ${JSON.stringify(data)}\n\n`);
        lastWrite = Date.now();
        cursor = event.id;
      }
      if (answer.next_cursor === null) break;
      cursor = answer.next_cursor;
    }
    if (Date.now() - lastWrite > KEEPALIVE_MS) {
      raw.write(': keep-alive\n\n');
      lastWrite = Date.now();
    }
  };
  // One poll at a time: the next is scheduled when the last has written what it found.
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    timer = setTimeout(() => {
      if (closed) return;
      poll().then(
        () => (closed ? undefined : schedule()),
        (error: unknown) => {
          request.log.warn({ err: error }, 'owner app live events failed');
          finish();
        },
      );
    }, POLL_MS);
  };
  const finish = (): void => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    raw.end();
  };
  schedule();
  raw.on('close', finish);
}
