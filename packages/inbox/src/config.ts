/** Settings from the environment, each with an embedded default (documented in README.md). */
import { SettingError } from '@svc/shared';
import { resolve } from 'node:path';

export interface InboxEnvironment {
  dataDir: string;
  host: string;
  port: number;
  publicBaseUrl: string;
  logLevel: string;
  seedDemo: boolean;
  /** Development: report to directory networks on 127.0.0.1 over http (INBOX_ALLOW_LOCAL_NETWORKS). */
  allowLocalNetworks: boolean;
  /** Development: add and fetch product feeds on 127.0.0.1 over http (INBOX_ALLOW_LOCAL_FEEDS=1). */
  allowLocalFeeds: boolean;
  /** Development: register and send webhooks to 127.0.0.1 over http (INBOX_ALLOW_LOCAL_WEBHOOKS=1). */
  allowLocalWebhooks: boolean;
  /** Development: push subscriptions whose endpoint is on 127.0.0.1 over http (INBOX_ALLOW_LOCAL_PUSH=1). */
  allowLocalPush: boolean;
  /** A directory network to register with on first start (INBOX_DIRECTORY_URL); none by default. */
  directoryUrl: string | null;
  /** PostgreSQL instead of the SQLite file (INBOX_DATABASE_URL, a postgres:// URL); null: SQLite. */
  databaseUrl: string | null;
}

function port(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) throw new SettingError(`${name} must be a port number, not ${value}`);
  return parsed;
}

export function readEnvironment(env: NodeJS.ProcessEnv = process.env): InboxEnvironment {
  const host = env.INBOX_HOST || '127.0.0.1';
  const inboxPort = port(env.INBOX_PORT, 8787, 'INBOX_PORT');
  return {
    dataDir: resolve(env.DATA_DIR || './data'),
    host,
    port: inboxPort,
    publicBaseUrl: env.INBOX_PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${inboxPort}`,
    logLevel: env.LOG_LEVEL || 'info',
    seedDemo: env.INBOX_SEED_DEMO !== 'false',
    allowLocalNetworks: env.INBOX_ALLOW_LOCAL_NETWORKS === 'true',
    allowLocalFeeds: env.INBOX_ALLOW_LOCAL_FEEDS === '1' || env.INBOX_ALLOW_LOCAL_FEEDS === 'true',
    allowLocalWebhooks: env.INBOX_ALLOW_LOCAL_WEBHOOKS === '1' || env.INBOX_ALLOW_LOCAL_WEBHOOKS === 'true',
    allowLocalPush: env.INBOX_ALLOW_LOCAL_PUSH === '1' || env.INBOX_ALLOW_LOCAL_PUSH === 'true',
    directoryUrl: env.INBOX_DIRECTORY_URL || null,
    databaseUrl: env.INBOX_DATABASE_URL || null,
  };
}
