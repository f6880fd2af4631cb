/**
 * A service's PostgreSQL URL read as libpq reads it, including a list of hosts for a failover pair
 * (`postgres://user:password@db1:5432,db2:5432/inbox?target_session_attrs=read-write`). node-postgres
 * (8.23) connects to one host per URL, so the list is split here into one URL per host, tried in
 * turn by the pool (postgres.ts); everything else in the URL (`sslmode`, `sslrootcert`,
 * `application_name`, …) is read by node-postgres as it documents.
 */

/** Which servers a service accepts as its database (libpq's target_session_attrs, the values a writer can use). */
export type TargetSessionAttrs = 'any' | 'read-write' | 'primary';

export interface PostgresLocation {
  /** One postgres:// URL per host, in the order given. */
  hostUrls: string[];
  /** `host:port[,host:port…]/database` for messages: never the user's password. */
  where: string;
  targetSessionAttrs: TargetSessionAttrs;
}

const URL_PARTS = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(.*)$/i;

/** Whether a setting names a PostgreSQL database. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** Splits `host[:port]` entries (an IPv6 address in brackets), keeping each as written. */
function splitHosts(list: string): string[] {
  if (list === '') return [''];
  return list.split(',').map((entry) => entry.trim());
}

/**
 * The hosts and the rest of a postgres:// URL. Throws (naming no password) when the URL cannot be
 * read or asks for a server a service cannot write to.
 */
export function postgresLocation(url: string): PostgresLocation {
  const parts = URL_PARTS.exec(url.trim());
  if (!parts || !isPostgresUrl(url.trim())) throw new Error('a PostgreSQL database is named by a postgres:// or postgresql:// URL');
  const [, scheme, userinfo, hostList, rest] = parts as unknown as [string, string, string | undefined, string, string];
  const hosts = splitHosts(hostList);
  if (hosts.some((h) => h === '') && hosts.length > 1) throw new Error('the database URL lists an empty host');
  const hostUrls = hosts.map((host) => `${scheme}${userinfo === undefined ? '' : `${userinfo}@`}${host}${rest}`);
  let first: URL;
  try {
    first = new URL(hostUrls[0] as string);
    for (const u of hostUrls.slice(1)) new URL(u);
  } catch {
    throw new Error('the database URL is not a valid URL');
  }
  const attrs = first.searchParams.get('target_session_attrs') ?? 'any';
  if (attrs !== 'any' && attrs !== 'read-write' && attrs !== 'primary') {
    throw new Error(`target_session_attrs=${attrs} in the database URL: a service writes, so it takes any, read-write or primary`);
  }
  const database = decodeURIComponent(first.pathname.replace(/^\//, '')) || '(the user\'s database)';
  const where = `${hosts.map((h) => (h === '' ? 'localhost' : /:\d+$/.test(h) ? h : `${h}:5432`)).join(',')}/${database}`;
  return { hostUrls, where, targetSessionAttrs: attrs };
}

/** The URL with its password (and query) left out, for a start line: hosts as given. */
export function redactedPostgresUrl(url: string): string {
  const parts = URL_PARTS.exec(url.trim());
  if (!parts) return 'postgres://?';
  const [, scheme, userinfo, hostList, rest] = parts as unknown as [string, string, string | undefined, string, string];
  const user = userinfo === undefined ? '' : `${userinfo.split(':')[0]}@`;
  const path = rest.replace(/[?#].*$/, '');
  return `${scheme.toLowerCase()}${user}${hostList}${path}`;
}
