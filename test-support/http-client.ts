/** What every service's tests use to talk to a real server: a JSON client and a clock they move. */

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** A body sent exactly as given (bad JSON, other media types). */
  rawBody?: string;
}

/** Requests against one origin; a JSON answer is parsed, anything else is returned as text. */
export function jsonClient(origin: string) {
  return async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    let body = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${origin}${path}`, { method, headers, body });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    return { status: response.status, headers: response.headers, body: type.includes('json') && text.length > 0 ? JSON.parse(text) : text };
  };
}

/** A clock tests move by hand. */
export class TestClock {
  nowMs: number;
  constructor(start: string | number) {
    this.nowMs = typeof start === 'number' ? start : Date.parse(start);
  }
  now(): number {
    return this.nowMs;
  }
  advance(ms: number): void {
    this.nowMs += ms;
  }
  set(iso: string): void {
    this.nowMs = Date.parse(iso);
  }
}
