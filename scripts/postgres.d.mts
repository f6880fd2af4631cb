// Types of scripts/postgres.mjs for the TypeScript tests and benches that start their own servers.

export interface PostgresServer {
  /** The `postgres` database as the `postgres` superuser (trust on 127.0.0.1 unless `hba` says otherwise). */
  url: string;
  host: string;
  port: number;
  folder: string;
  data: string;
  bin: string;
  version: string;
  halt(mode?: 'smart' | 'fast' | 'immediate'): boolean;
  resume(): boolean;
  restart(mode?: 'smart' | 'fast' | 'immediate'): boolean;
  promote(): boolean;
  psql(text: string, database?: string): string;
  logTail(lines?: number): string;
  stop(): void;
}

export interface StartOptions {
  quiet?: boolean;
  port?: number;
  settings?: string[];
  fsync?: boolean;
  synchronousCommit?: boolean;
  tls?: { cert: string; key: string } | null;
  hba?: string[];
}

export function ensureServer(options?: { quiet?: boolean }): { bin: string; reason?: undefined } | { bin?: undefined; reason: string };
export function startPostgres(options?: StartOptions): Promise<PostgresServer | { reason: string; url?: undefined }>;
export function startStandby(primary: PostgresServer, options?: Omit<StartOptions, 'tls' | 'hba' | 'quiet'>): Promise<PostgresServer | { reason: string; url?: undefined }>;
