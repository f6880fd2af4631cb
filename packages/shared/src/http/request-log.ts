/**
 * The request log: one line per answered request, and standard output written in gathered chunks.
 *
 * Through pino's object path (a child logger per request, serializers, bindings, JSON of nested
 * objects, then sonic-boom measuring its growing buffer on every line) a request line cost about
 * 15 µs of CPU: as much as a bare Fastify route's whole answer. The line is small and always has the
 * same shape, so it is written here as text, with exactly the fields, order and masking pino would
 * give it (log-lines.test.ts reads both kinds of line).
 */
import { hostname } from 'node:os';
import pino from 'pino';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { maskCredentials, rawRequestLogSerializer, requestLogSerializer } from './log-redaction.js';

/** Where lines go: a test's collector, or standard output through GatheredLines. */
export interface LineSink {
  write(line: string): void;
}

/** pino's numeric level for `info`. */
const INFO = 30;

export class RequestLineWriter {
  readonly #sink: LineSink;
  readonly #logger: pino.Logger;
  /** pino's base bindings (`pid`, `hostname`), written once as text. */
  readonly #base = `"pid":${process.pid},"hostname":${JSON.stringify(hostname())},`;

  constructor(logger: pino.Logger, sink: LineSink) {
    this.#logger = logger;
    this.#sink = sink;
  }

  /** The line pino would write for `reply.log.info({ req, res, responseTime }, 'request completed')`; nothing above `info`. */
  completed(request: FastifyRequest, reply: FastifyReply): void {
    if (this.#logger.levelVal > INFO) return;
    this.#write(request.id, requestLogSerializer(request), reply.statusCode, reply.elapsedTime);
  }

  /** The same line for a request answered without the framework (answer-replay.ts): its peer is the client. */
  completedRaw(id: string, request: IncomingMessage, statusCode: number, responseTimeMs: number): void {
    if (this.#logger.levelVal > INFO) return;
    this.#write(id, rawRequestLogSerializer(request), statusCode, responseTimeMs);
  }

  #write(id: string, req: Record<string, unknown>, statusCode: number, responseTimeMs: number): void {
    const line =
      `{"level":${INFO},"time":${Date.now()},${this.#base}"reqId":${JSON.stringify(id)},` +
      `"req":${JSON.stringify(req)},"res":{"statusCode":${statusCode}},` +
      `"responseTime":${JSON.stringify(responseTimeMs)},"msg":"request completed"}\n`;
    this.#sink.write(maskCredentials(line));
  }
}

/**
 * Standard output without a write per line: lines gather in memory and go to one sonic-boom write
 * once GATHER_BYTES wait, or LOG_FLUSH_MS after the first of them. Lines keep their order (pino's own go
 * through here too). What still waits is written when the process exits; a SIGKILL can lose the
 * last LOG_FLUSH_MS of lines, never an answer.
 */
class GatheredLines implements LineSink {
  readonly #out: pino.DestinationStream & { flushSync(): void };
  #parts: string[] = [];
  #length = 0;
  #timer: NodeJS.Timeout | null = null;

  constructor(fd = 1) {
    // Registered before the destination is made, so that at exit these lines reach it before it
    // is flushed and ended (pino's exit hooks run in the order they were registered).
    process.on('beforeExit', () => this.flush());
    process.on('exit', () => {
      this.flush();
      try {
        this.#out.flushSync();
      } catch {
        // Standard output is gone or not ready: nothing more can be said.
      }
    });
    this.#out = pino.destination({ dest: fd, sync: false });
  }

  write(line: string): void {
    this.#parts.push(line);
    this.#length += line.length;
    if (this.#length >= GATHER_BYTES) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), LOG_FLUSH_MS).unref();
  }

  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#length === 0) return;
    const text = this.#parts.length === 1 ? this.#parts[0]! : this.#parts.join('');
    this.#parts = [];
    this.#length = 0;
    this.#out.write(text);
  }
}

let standardOutput: GatheredLines | null = null;

/** Standard output for log lines, one per process: services started together keep their lines in order. */
export function standardOutputLines(): LineSink {
  standardOutput ??= new GatheredLines(1);
  return standardOutput;
}

/** How long a log line may wait for others before it is written anyway. */
const LOG_FLUSH_MS = 100;
/** How much gathers before it is written at once (characters; sonic-boom writes at most 16 KiB a call). */
const GATHER_BYTES = 8192;
