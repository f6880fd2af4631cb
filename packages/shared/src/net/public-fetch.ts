/**
 * Outbound HTTP to addresses on the public internet only (no SSRF into private networks): the host
 * is resolved once and every address checked, and the connection goes to the checked address, so a
 * DNS answer cannot change between the check and the request. Short timeout, size cap, redirects
 * are never followed. `allowLoopback` (a development setting) also admits 127.0.0.0/8 and ::1.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isLoopbackAddress, isPublicAddress } from './public-address.js';

export type PublicFetchFailure = 'bad_url' | 'blocked_address' | 'dns' | 'timeout' | 'too_large' | 'redirect' | 'network';

export class PublicFetchError extends Error {
  readonly reason: PublicFetchFailure;
  constructor(reason: PublicFetchFailure, message: string) {
    super(message);
    this.name = 'PublicFetchError';
    this.reason = reason;
  }
}

export interface PublicFetchOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs: number;
  maxBytes: number;
  /**
   * What an answer longer than `maxBytes` is: `refuse` (the default) fails with `too_large`; `truncate`
   * keeps its first `maxBytes` bytes and stops reading, for callers to whom the status is what matters.
   */
  overflow?: 'refuse' | 'truncate';
  allowLoopback: boolean;
  /** Plain http is refused unless allowed (development against 127.0.0.1). */
  allowHttp: boolean;
  /**
   * What a 3xx answer is: `refuse` (the default) fails with `redirect`; `return` gives it (status and
   * headers, Location among them, no body) to a caller that follows redirects by its own rules.
   */
  redirects?: 'refuse' | 'return';
  /**
   * Development only, with `allowLoopback`: connect to this loopback `address:port` instead of
   * resolving the URL's host, which is still sent as the Host (a local web of sample sites).
   */
  connectTo?: string;
}

export interface PublicFetchResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** True when the body was cut at `maxBytes` (overflow `truncate`). */
  truncated: boolean;
}

function admissible(address: string, allowLoopback: boolean): boolean {
  return isPublicAddress(address) || (allowLoopback && isLoopbackAddress(address));
}

export async function publicFetch(target: string, options: PublicFetchOptions): Promise<PublicFetchResult> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new PublicFetchError('bad_url', `not a URL: ${target}`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.allowHttp)) {
    throw new PublicFetchError('bad_url', `only https is allowed, not ${url.protocol}`);
  }
  if (url.username || url.password) throw new PublicFetchError('bad_url', 'credentials in a URL are refused');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !admissible(host, options.allowLoopback)) {
    throw new PublicFetchError('blocked_address', `${host} is not a public address`);
  }

  const checkedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 4);
      const blocked = addresses.find((a) => !admissible(a.address, options.allowLoopback));
      if (blocked || addresses.length === 0) {
        const refusal = new PublicFetchError('blocked_address', `${hostname} resolves to ${blocked?.address ?? 'nothing'}, not a public address`);
        return callback(refusal as NodeJS.ErrnoException, '', 4);
      }
      const chosen = addresses[0] as LookupAddress;
      if ((lookupOptions as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [chosen]);
      return callback(null, chosen.address, chosen.family);
    });
  };

  let connect: { host: string; port: number } | null = null;
  if (options.connectTo !== undefined) {
    const match = /^(\[[0-9a-f:]+\]|[0-9.]+):(\d{1,5})$/i.exec(options.connectTo);
    const address = match?.[1]?.replace(/^\[|\]$/g, '') ?? '';
    if (!options.allowLoopback || !match || !isLoopbackAddress(address)) {
      throw new PublicFetchError('blocked_address', 'connectTo is a development setting for loopback addresses only');
    }
    connect = { host: address, port: Number(match[2]) };
  }

  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PublicFetchResult>((resolve, reject) => {
    const request = send(
      url,
      {
        method: options.method ?? 'GET',
        // A body goes with its length (not chunked, which some receivers refuse), headers and body in one write.
        headers: {
          'user-agent': 'svc-directory/0.1',
          accept: 'application/json',
          ...options.headers,
          ...(options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) }),
          ...(connect ? { host: url.host } : {}),
        },
        ...(connect ? { hostname: connect.host, port: connect.port, servername: url.hostname } : { lookup: checkedLookup }),
        timeout: options.timeoutMs,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          response.resume();
          if (options.redirects === 'return') {
            resolve({ status, headers: response.headers, body: '', truncated: false });
            return;
          }
          reject(new PublicFetchError('redirect', `answered ${status} (redirects are not followed)`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          const room = options.maxBytes - size;
          size += chunk.length;
          if (size > options.maxBytes) {
            if (options.overflow === 'truncate') {
              chunks.push(chunk.subarray(0, room));
              resolve({ status, headers: response.headers, body: Buffer.concat(chunks).toString('utf8'), truncated: true });
              request.destroy();
            } else {
              request.destroy(new PublicFetchError('too_large', `the answer is larger than ${options.maxBytes} bytes`));
            }
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve({ status, headers: response.headers, body: Buffer.concat(chunks).toString('utf8'), truncated: false }));
        response.on('error', (error) => reject(wrap(error)));
      },
    );
    const deadline = setTimeout(() => request.destroy(new PublicFetchError('timeout', `no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on('timeout', () => request.destroy(new PublicFetchError('timeout', `no answer within ${options.timeoutMs} ms`)));
    request.on('error', (error) => reject(wrap(error)));
    request.on('close', () => clearTimeout(deadline));
    request.end(options.body);
  });
}

function wrap(error: unknown): PublicFetchError {
  if (error instanceof PublicFetchError) return error;
  const e = error as NodeJS.ErrnoException;
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return new PublicFetchError('dns', `the name does not resolve (${e.code})`);
  return new PublicFetchError('network', e.message || String(error));
}
