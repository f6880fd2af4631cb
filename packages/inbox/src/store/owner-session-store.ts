/** Sessions of the owner app (docs/web.md "Sessions"): only a hash of each session's token is kept. */

export interface OwnerSessionRecord {
  /** SHA-256 (hex) of the token in the cookie; the token itself is never stored. */
  tokenHash: string;
  /** The owner key the session was opened with: revoking it ends the session. */
  keyId: string;
  createdAt: number;
  lastSeenAt: number;
  /** The absolute end, whatever the use. */
  expiresAt: number;
  /** A few words of the browser that opened it, so the owner can tell sessions apart. */
  userAgent: string | null;
}

export interface OwnerSessionStore {
  insert(session: OwnerSessionRecord): Promise<void>;
  find(tokenHash: string): Promise<OwnerSessionRecord | null>;
  touch(tokenHash: string, nowMs: number): Promise<void>;
  delete(tokenHash: string): Promise<void>;
  /** Ends every session (sign out everywhere); gives how many there were. */
  deleteAll(): Promise<number>;
  /** Deletes sessions past their absolute end or idle since before `idleBeforeMs`. */
  prune(nowMs: number, idleBeforeMs: number): Promise<number>;
  count(): Promise<number>;
}
