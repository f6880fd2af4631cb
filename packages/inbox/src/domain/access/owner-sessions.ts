/**
 * Sessions of the owner app (inbox spec §5: "the owner app uses its session"; docs/web.md). The owner
 * signs in once with an owner key; the app then holds a random session token in an httpOnly cookie.
 * Only the token's SHA-256 is stored, so a copy of the database opens no session. A session ends
 * after IDLE_MS without use, at ABSOLUTE_MS after sign-in whatever the use, when the owner signs out
 * (this one, or everywhere), and when the owner key it was opened with is revoked or expires.
 * Each write's CSRF token is derived from the session token (an HMAC), so a page of another origin,
 * which cannot read the cookie, cannot forge one; nothing more is stored for it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Problem, randomToken, sha256Hex } from '@svc/shared';
import type { OwnerSessionRecord } from '../../store/owner-session-store.js';
import type { ApiKeyRecord, ChangeStamps, InboxStore } from '../../store/store.js';
import type { Caller } from '../types.js';
import { ALL_SCOPES, OWNER_KEY_PREFIX } from './api-keys.js';

/** A session unused for a week ends: the owner of a small business may not open the app every day. */
export const SESSION_IDLE_MS = 7 * 86_400_000;
/** Every session ends thirty days after sign-in, used or not. */
export const SESSION_ABSOLUTE_MS = 30 * 86_400_000;
/** Last use is written at most once a minute, so reading pages does not write on every request. */
const TOUCH_RESOLUTION_MS = 60_000;
/** The channel of every call the owner app makes (inbox spec §2 "Actor and channel"). */
export const OWNER_APP_CHANNEL = 'owner_ui';

export interface OwnerSession {
  caller: Caller;
  /** The token's hash: what sign-out deletes. */
  tokenHash: string;
  /** The token every form of this session carries against CSRF. */
  csrfToken: string;
}

/** The CSRF token of a session: HMAC-SHA256 of a fixed label under the session token. */
export function csrfTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('owner-app csrf v1').digest('base64url');
}

export function csrfTokenMatches(sessionToken: string, presented: unknown): boolean {
  if (typeof presented !== 'string' || presented.length === 0 || presented.length > 200) return false;
  const expected = Buffer.from(csrfTokenOf(sessionToken));
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * Opens a session with an owner key. Integration keys, AI apps' tokens and anything unknown, revoked
 * or expired are refused alike (401), without saying which. Expired sessions are swept here.
 */
export async function signIn(store: InboxStore, presentedKey: string, nowMs: number, userAgent: string | undefined): Promise<{ token: string; session: OwnerSession }> {
  const key = presentedKey.trim();
  const record = key.startsWith(OWNER_KEY_PREFIX) && key.length <= 200 ? await store.apiKeys.findByHash(sha256Hex(key)) : null;
  if (!record || record.kind !== 'owner' || record.revokedAt !== null || (record.expiresAt !== null && record.expiresAt <= nowMs)) {
    throw new Problem('unauthorized', 'That is not a working owner key. Paste the owner key (svc_own_…) the inbox showed when it was made.');
  }
  await store.ownerSessions.prune(nowMs, nowMs - SESSION_IDLE_MS);
  // Always a new token: a session id the browser brought along is never adopted (session fixation).
  const token = randomToken(32);
  const tokenHash = sha256Hex(token);
  await store.ownerSessions.insert({
    tokenHash,
    keyId: record.id,
    createdAt: nowMs,
    lastSeenAt: nowMs,
    expiresAt: nowMs + SESSION_ABSOLUTE_MS,
    userAgent: userAgent ? userAgent.replace(/[^\x20-\x7e]/g, '').slice(0, 160) : null,
  });
  await store.apiKeys.touch(record.id, nowMs);
  return { token, session: sessionOf(record.id, record.name, tokenHash, token) };
}

/**
 * Sessions found open, kept while no session and no key is written (the store's stamp of both: a
 * sign-out, a revoked key, a touch, another process's write all change it): a page read then costs
 * no query for its session. The clock's ends (idle, absolute, the key's expiry) are checked on every
 * use; a session due for its once-a-minute touch takes the full path.
 */
interface KeptSessions {
  stamp: string;
  open: Map<string, { record: OwnerSessionRecord; key: ApiKeyRecord; session: OwnerSession }>;
}
const keptSessionsByDatabase = new WeakMap<ChangeStamps, KeptSessions>();
const MAX_KEPT_SESSIONS = 1000;

function stillOpen(record: OwnerSessionRecord, key: ApiKeyRecord, nowMs: number): boolean {
  return record.expiresAt > nowMs && record.lastSeenAt + SESSION_IDLE_MS > nowMs && keyWorks(key, nowMs);
}

/** A kept session resumeSession gives as it is: still open, and not due its once-a-minute touch. */
function keptOpen(known: { record: OwnerSessionRecord; key: ApiKeyRecord }, nowMs: number): boolean {
  return stillOpen(known.record, known.key, nowMs) && nowMs - known.record.lastSeenAt < TOUCH_RESOLUTION_MS;
}

/**
 * Whether resumeSession would, at this moment, give this session from what it keeps, reading and
 * writing nothing: the same checks, made without waiting (a replayed page, answer-replay.ts). False
 * whenever the answer would need the store (a stamp that is a promise, a session not kept, one due
 * its touch); the framework's path then decides.
 */
export function sessionHoldsNow(store: InboxStore, tokenHash: string, nowMs: number): boolean {
  const stamp = store.changes.stamp(['sessions']);
  if (typeof stamp !== 'string') return false;
  const kept = keptSessionsByDatabase.get(store.changes);
  if (!kept || kept.stamp !== stamp) return false;
  const known = kept.open.get(tokenHash);
  return known !== undefined && keptOpen(known, nowMs);
}

function keyWorks(key: ApiKeyRecord | null, nowMs: number): key is ApiKeyRecord {
  return key !== null && key.kind === 'owner' && key.revokedAt === null && (key.expiresAt === null || key.expiresAt > nowMs);
}

/** The session a cookie names, or null when there is none, it ended, or its key no longer works. */
export async function resumeSession(store: InboxStore, token: string | undefined, nowMs: number): Promise<OwnerSession | null> {
  if (!token || token.length > 200) return null;
  const tokenHash = sha256Hex(token);
  // Taken before the reads: a write landing in between leaves what is kept under a stamp no later one equals.
  const stamp = await store.changes.stamp(['sessions']);
  let kept = keptSessionsByDatabase.get(store.changes);
  if (!kept || kept.stamp !== stamp) {
    kept = { stamp, open: new Map() };
    keptSessionsByDatabase.set(store.changes, kept);
  }
  const known = kept.open.get(tokenHash);
  if (known && keptOpen(known, nowMs)) return known.session;

  const record = await store.ownerSessions.find(tokenHash);
  if (!record) return null;
  if (record.expiresAt <= nowMs || record.lastSeenAt + SESSION_IDLE_MS <= nowMs) {
    await store.ownerSessions.delete(tokenHash);
    return null;
  }
  const key = await store.apiKeys.get(record.keyId);
  if (!keyWorks(key, nowMs)) {
    await store.ownerSessions.delete(tokenHash);
    return null;
  }
  const session = sessionOf(key.id, key.name, tokenHash, token);
  // Touched now, this session's stamp is gone: the next use reads it again, then keeps it for the minute.
  if (nowMs - record.lastSeenAt >= TOUCH_RESOLUTION_MS) await store.ownerSessions.touch(tokenHash, nowMs);
  else if (kept.open.size < MAX_KEPT_SESSIONS) kept.open.set(tokenHash, { record, key, session });
  return session;
}

export async function signOut(store: InboxStore, session: OwnerSession): Promise<void> {
  await store.ownerSessions.delete(session.tokenHash);
}

/** Ends every session of the owner app, on every device. */
export async function signOutEverywhere(store: InboxStore): Promise<number> {
  return store.ownerSessions.deleteAll();
}

function sessionOf(keyId: string, keyName: string, tokenHash: string, token: string): OwnerSession {
  return {
    // The owner, through the owner app: actor owner, channel owner_ui (the same caller REST gives an owner key, on its own door).
    caller: { kind: 'owner', actor: { kind: 'owner', id: keyId, name: keyName }, channel: OWNER_APP_CHANNEL, keyId, scopes: [...ALL_SCOPES] },
    tokenHash,
    csrfToken: csrfTokenOf(token),
  };
}
