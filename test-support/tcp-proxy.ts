/**
 * A TCP proxy in front of a PostgreSQL server, for tests of what the network can do to a service:
 * lose the answer to a COMMIT (the server committed, the client never hears), refuse new
 * connections for a while, or go silent (accept and never answer).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

/** The simple-protocol message node-postgres sends for `commit`: 'Q', length 11, "commit\0". */
const COMMIT_MESSAGE = Buffer.concat([Buffer.from([0x51, 0, 0, 0, 11]), Buffer.from('commit\0', 'latin1')]);

export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string;
  /**
   * The next COMMIT any connection sends reaches the server; its answer does not: `holdMs` later
   * every connection is cut (and, with `thenRefuse`, new ones refused from that moment). Resolves
   * once the cut is made.
   */
  loseNextCommitAnswer(holdMs: number, options?: { thenRefuse?: boolean }): Promise<void>;
  /** New connections closed at once (true) or let through (false). */
  refuse(on: boolean): void;
  /** Nothing forwarded either way, connections kept open (a server that stopped answering). */
  silence(on: boolean): void;
  /** Cuts every connection now. */
  cutAll(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const pairs = new Set<{ client: Socket; server: Socket }>();
  let refusing = false;
  let silent = false;
  let commitArmed: { holdMs: number; thenRefuse: boolean; done: () => void } | null = null;

  const cutAll = () => {
    for (const pair of pairs) {
      pair.client.destroy();
      pair.server.destroy();
    }
    pairs.clear();
  };

  const server: Server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    const pair = { client, server: upstream };
    pairs.add(pair);
    let answersLost = false;
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
    client.on('data', (chunk: Buffer) => {
      if (silent) return;
      upstream.write(chunk);
      if (commitArmed && chunk.includes(COMMIT_MESSAGE)) {
        const { holdMs, thenRefuse, done } = commitArmed;
        commitArmed = null;
        answersLost = true;
        setTimeout(() => {
          if (thenRefuse) refusing = true;
          cutAll();
          done();
        }, holdMs);
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (silent || answersLost) return;
      client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  return {
    port,
    urlFor(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.href;
    },
    loseNextCommitAnswer(holdMs, options = {}) {
      return new Promise((resolve) => {
        commitArmed = { holdMs, thenRefuse: options.thenRefuse ?? false, done: resolve };
      });
    },
    refuse(on) {
      refusing = on;
    },
    silence(on) {
      silent = on;
    },
    cutAll,
    close() {
      cutAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
