/**
 * What can go wrong between a service and its PostgreSQL server, as errors with PostgreSQL's own
 * SQLSTATEs (class 08, connection exception), so that storage-health.ts classes them with the
 * server's codes: each is a 503 `storage_unavailable` with Retry-After, never a crash or a 500.
 */

function causeText(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === 'string' && !cause.message.includes(code) ? `${code}: ${cause.message}` : cause.message;
  }
  return String(cause);
}

/** No connection could be made (refused, timed out, no slot, sign-in refused, not a writable server): nothing ran. 08001. */
export class DatabaseUnreachable extends Error {
  readonly code = '08001';
  constructor(where: string, cause: unknown) {
    super(`the database cannot be reached (${where}): ${causeText(cause)}`, { cause });
    this.name = 'DatabaseUnreachable';
  }
}

/**
 * The connection broke while a statement ran (the server restarted or stopped, a failover, a
 * dropped connection, no answer in time). The server rolls back whatever the connection had not
 * committed, so nothing of its transaction was saved. 08006.
 */
export class ConnectionLost extends Error {
  readonly code = '08006';
  /** Worth running again at once on a new connection (not when the server took too long: that would wait as long again). */
  readonly runAgain: boolean;
  constructor(where: string, cause: unknown) {
    super(`the connection to the database was lost (${where}): ${causeText(cause)}`, { cause });
    this.name = 'ConnectionLost';
    this.runAgain = !(cause instanceof NoAnswer);
  }
}

/** Why a connection was closed: the server did not answer a statement in time. */
export class NoAnswer extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'NoAnswer';
  }
}

/**
 * The connection broke after COMMIT was sent and before its answer came, and the database could not
 * be asked in time whether the transaction committed: it may have. 08007 (transaction_resolution_unknown).
 */
export class CommitOutcomeUnknown extends Error {
  readonly code = '08007';
  constructor(where: string, cause: unknown) {
    super(`the connection to the database was lost during COMMIT and whether it committed is not known (${where}): ${causeText(cause)}`, { cause });
    this.name = 'CommitOutcomeUnknown';
  }
}

/** The server would not take writes (a standby, or default_transaction_read_only): refused at connect when the URL asks for a writable one. */
export class ServerNotWritable extends Error {
  readonly code = '25006';
  constructor(host: string, why: string) {
    super(`${host} does not take writes (${why})`);
    this.name = 'ServerNotWritable';
  }
}

/** A service cannot start on its database, said in an operator's words (what to check); printed without a stack. */
export class StartRefusal extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'StartRefusal';
  }
}

/** SQLSTATEs after which a connection is gone: the server is shutting down or crashed, or the connection failed. */
const FATAL_STATES = new Set(['57P01', '57P02', '57P03', '08000', '08003', '08006']);

/** Whether an error a statement failed with leaves its connection unusable (the pool then drops it). */
export function endsConnection(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && FATAL_STATES.has(code);
}
