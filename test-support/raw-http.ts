/**
 * One HTTP request on a connection of its own, with exactly the headers given (no client adds any),
 * and the answer as sent: its header names in order and its bytes, undecoded. For tests of what a
 * server writes byte for byte (answers replayed in front of the framework).
 */
import { request as httpRequest } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Header names in the order sent (lower case). */
  order: string[];
  body: Buffer;
}

export function rawRequest(baseUrl: string, method: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: url.hostname, port: url.port, method, path, headers, agent: false }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const order = answer.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
        resolve({ status: answer.statusCode ?? 0, headers: answer.headers, order, body: Buffer.concat(chunks) });
      });
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** Headers that belong to the request's own answer (its date, its budget, its connection), not to what was kept. */
const REQUEST_OWN = new Set(['date', 'ratelimit', 'connection', 'keep-alive']);

/** The answer's headers in order, without the request's own: equal for two servings of one kept answer. */
export function keptHeaders(answer: RawAnswer): [string, string | string[] | undefined][] {
  return answer.order.filter((name) => !REQUEST_OWN.has(name)).map((name) => [name, answer.headers[name]]);
}
