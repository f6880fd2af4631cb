/**
 * A request to the test inbox from another client address: the whole of 127.0.0.0/8 is this machine,
 * so a connection bound to 127.0.0.2 reaches the server on 127.0.0.1 and is seen coming from
 * 127.0.0.2, as a second customer on another network would be.
 */
import { request as httpRequest } from 'node:http';
import type { ApiResponse, TestInbox } from './harness.js';

export async function requestFrom(
  t: TestInbox,
  localAddress: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const url = new URL(path, t.baseUrl);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method,
        localAddress,
        agent: false,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(options.headers ?? {}) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
          const type = headers.get('content-type') ?? '';
          resolve({ status: response.statusCode ?? 0, headers, body: type.includes('json') && text.length > 0 ? JSON.parse(text) : text });
        });
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
