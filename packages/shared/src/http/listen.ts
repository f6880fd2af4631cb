/**
 * Listening on the configured address, with a refusal a person can act on: a port another program
 * holds, a port that needs privileges, an address this machine does not have. Each names the
 * setting to change. Other errors pass unchanged.
 */
import type { FastifyInstance } from 'fastify';

/** A server that could not listen, with what to do about it; `name` is 'ListenError' (scripts test it). */
export class ListenError extends Error {
  readonly code: string;
  constructor(message: string, code: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ListenError';
    this.code = code;
  }
}

export interface ListenTarget {
  host: string;
  port: number;
  /** The service, as people call it: "inbox", "directory". */
  service: string;
  /** The settings that choose the port and the host: INBOX_PORT, INBOX_HOST. */
  portSetting: string;
  hostSetting: string;
}

/** Listens; gives the address it listens on, or throws a ListenError naming the setting to change. */
export async function listenOrExplain(app: FastifyInstance, target: ListenTarget): Promise<string> {
  try {
    return await app.listen({ host: target.host, port: target.port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const where = `${target.host}:${target.port}`;
    const next = target.port > 0 && target.port < 65_535 ? target.port + 1 : 8_000;
    const message: Record<string, string> = {
      EADDRINUSE: `The ${target.service} cannot listen on ${where}: port ${target.port} is already in use by another program. Stop that program, or choose another port with ${target.portSetting} (for example ${target.portSetting}=${next}).`,
      EACCES: `The ${target.service} may not listen on ${where}: port ${target.port} needs privileges this user does not have. Choose a port above 1023 with ${target.portSetting} (for example ${target.portSetting}=${target.port < 1024 ? 8_000 + target.port : next}).`,
      EADDRNOTAVAIL: `The ${target.service} cannot listen on ${where}: ${target.host} is not an address of this machine. Set ${target.hostSetting} to one it has (for example ${target.hostSetting}=127.0.0.1).`,
    };
    const explained = message[code];
    if (explained === undefined) throw error;
    throw new ListenError(explained, code, { cause: error });
  }
}
