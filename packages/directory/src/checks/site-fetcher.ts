/**
 * The crawler's only way to a site: every request goes through the SSRF-safe publicFetch (public
 * addresses only, resolved once, no redirects of its own, timeout, size cap), as our documented
 * user agent, after robots.txt, within the site's budgets (requests, bytes, one deadline for the
 * whole check), one request at a time with the site's Crawl-delay between them. Redirects are
 * followed here, only to the same site (the same registrable domain, https, or http on the local
 * web) and at most a few hops. Reads only: GET, and the POSTs of the MCP handshake and tool list.
 */
import { PublicFetchError, publicFetch } from '@svc/shared';
import { isIP } from 'node:net';
import { parse } from 'tldts';
import { OPEN_POLICY, aiOptOutInHeader, robotsPolicy, type RobotsPolicy } from '../domain/checks/robots-policy.js';

export interface CrawlerSettings {
  /** The product token robots.txt groups name (RFC 9309 §2.2.1). */
  productToken: string;
  /** The whole User-Agent header, with the page that explains the crawler. */
  userAgent: string;
  requestTimeoutMs: number;
  /** The whole check of one site, every request included. */
  checkDeadlineMs: number;
  maxRequestsPerSite: number;
  maxBytesPerSite: number;
  maxBytesPerResponse: number;
  maxRedirects: number;
  maxCrawlDelayMs: number;
  /** Development only: `127.0.0.1:<port>` of the local web of sample sites, which serves every `.test` name. Null in production. */
  localWeb: string | null;
}

export const CRAWLER_TOKEN = 'svc-check';

export function defaultCrawlerSettings(baseUrl: string, localWeb: string | null): CrawlerSettings {
  return {
    productToken: CRAWLER_TOKEN,
    userAgent: `Mozilla/5.0 (compatible; ${CRAWLER_TOKEN}/1.0; +${baseUrl}/llms.txt)`,
    requestTimeoutMs: 5_000,
    checkDeadlineMs: 45_000,
    maxRequestsPerSite: 40,
    maxBytesPerSite: 4 * 1024 * 1024,
    maxBytesPerResponse: 1024 * 1024,
    maxRedirects: 4,
    maxCrawlDelayMs: 5_000,
    localWeb,
  };
}

/** Why a request was not answered: over a budget, refused by robots.txt, off the site, or the network's reason. */
export type FetchRefusal = 'budget' | 'robots' | 'off_site' | 'redirect_loop' | 'too_many_redirects' | PublicFetchError['reason'];

export interface FetchedDocument {
  ok: true;
  /** The URL that answered (after redirects on the site). */
  url: string;
  status: number;
  contentType: string;
  body: string;
  truncated: boolean;
  headers: Record<string, string | string[] | undefined>;
}

export interface FetchFailure {
  ok: false;
  url: string;
  reason: FetchRefusal;
  detail: string;
}

export type FetchOutcome = FetchedDocument | FetchFailure;

export class BudgetSpent extends Error {}

export interface RequestOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  accept?: string;
  /** A smaller cap for this answer; a longer one is cut (`truncated`) for pages, refused for documents. */
  maxBytes?: number;
  overflow?: 'refuse' | 'truncate';
  /** Follow redirects on the site (GET only). Default true. */
  follow?: boolean;
}

export interface SiteUsage {
  requests: number;
  bytes: number;
  /** Requests not made: robots.txt disallowed them, or a budget was spent. */
  skipped: number;
}

export class SiteFetcher {
  readonly domain: string;
  readonly settings: CrawlerSettings;
  readonly usage: SiteUsage = { requests: 0, bytes: 0, skipped: 0 };
  /** Set once robots.txt was read. */
  policy: RobotsPolicy = OPEN_POLICY;
  /** The site says no to AI use in a Content-Usage header of an answer. */
  headerOptOut: string | null = null;
  readonly #deadline: number;
  #lastRequestAt = 0;

  constructor(domain: string, settings: CrawlerSettings, startedAt = Date.now()) {
    this.domain = domain;
    this.settings = settings;
    this.#deadline = startedAt + settings.checkDeadlineMs;
  }

  /** The site's first address: https, or http on the local web. */
  get origin(): string {
    return `${this.#local ? 'http' : 'https'}://${this.domain}`;
  }

  get #local(): boolean {
    return this.settings.localWeb !== null && this.domain.endsWith('.test');
  }

  /** Whether a URL is on this site: same registrable domain, https (http on the local web), no credentials, no port. */
  onSite(target: string): boolean {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return false;
    }
    if (url.username || url.password || url.port) return false;
    const host = url.hostname.toLowerCase().replace(/\.$/, '');
    if (this.#local) return url.protocol === 'http:' && (host === this.domain || host.endsWith(`.${this.domain}`));
    if (url.protocol !== 'https:') return false;
    return parse(host, { allowPrivateDomains: true }).domain === this.domain;
  }

  remainingMs(): number {
    return this.#deadline - Date.now();
  }

  /** Reads robots.txt (RFC 9309): 2xx its rules; 4xx none (all allowed); 5xx or no answer: the site is treated as closed for now. */
  async readRobots(): Promise<{ status: 'read' | 'none' | 'unreachable'; detail?: string; reason?: FetchRefusal }> {
    const url = `${this.origin}/robots.txt`;
    const answer = await this.#request(url, { accept: 'text/plain', maxBytes: 500 * 1024, overflow: 'truncate' }, false);
    if (!answer.ok) return { status: 'unreachable', detail: answer.detail, reason: answer.reason };
    if (answer.status >= 500) return { status: 'unreachable', detail: `robots.txt answered HTTP ${answer.status}` };
    if (answer.status >= 400) return { status: 'none' };
    // A page in place of robots.txt (a site that answers every path with its home page) has no rules.
    if (/html/i.test(answer.contentType) || /^\s*</.test(answer.body)) return { status: 'none' };
    this.policy = robotsPolicy(answer.url, answer.body, this.settings.productToken, this.settings.maxCrawlDelayMs);
    return { status: 'read' };
  }

  /** A read of the site, following redirects on the site; robots.txt and the budgets apply. */
  async get(target: string, options: RequestOptions = {}): Promise<FetchOutcome> {
    const url = new URL(target, this.origin).toString();
    if (!this.onSite(url)) return { ok: false, url, reason: 'off_site', detail: 'not on this site' };
    if (!this.policy.allows(url)) {
      this.usage.skipped += 1;
      return { ok: false, url, reason: 'robots', detail: 'robots.txt disallows it for our crawler' };
    }
    return this.#request(url, options, options.follow ?? (options.method ?? 'GET') === 'GET');
  }

  /**
   * A document a door of the site declared on another host (an OpenAPI document, a server card):
   * one GET, no redirects followed, within the same budgets. The door it describes counts only when
   * the document itself names the site (the caller checks).
   */
  async getDeclared(target: string, options: RequestOptions = {}): Promise<FetchOutcome> {
    let url: string;
    try {
      url = new URL(target, this.origin).toString();
    } catch {
      return { ok: false, url: target, reason: 'bad_url', detail: 'not a valid address' };
    }
    if (this.onSite(url)) return this.get(url, options);
    if (!this.#elsewhereAllowed(url)) return { ok: false, url, reason: 'off_site', detail: 'only https documents are read on other hosts' };
    return this.#request(url, { ...options, method: 'GET' }, false);
  }

  /** An address on another host the check may read a declared document or door at: https (the local web's .test names in development). */
  #elsewhereAllowed(target: string): boolean {
    try {
      const url = new URL(target);
      if (url.username || url.password || url.port) return false;
      if (this.#local) return url.protocol === 'http:' && url.hostname.endsWith('.test');
      // A name, never an address: what it resolves to is checked when it is fetched.
      return url.protocol === 'https:' && isIP(url.hostname.replace(/^\[|\]$/g, '')) === 0;
    } catch {
      return false;
    }
  }

  /** Whether the MCP client may POST to this address: on the site, or the declared endpoint on another host. */
  mayPost(target: string, declared: string): boolean {
    return this.onSite(target) || (target === declared && this.#elsewhereAllowed(target));
  }

  /**
   * A fetch for the MCP SDK's client (its transport takes one): POSTs of JSON-RPC messages to the
   * server, through the same budgets. A GET (the SDK opening a stream of server messages) is
   * answered 405 here without a request: the check reads, it never listens.
   */
  mcpFetch(allowedUrl: (url: string) => boolean) {
    return async (input: string | URL, init?: RequestInit): Promise<Response> => {
      const url = String(input);
      const method = (init?.method ?? 'GET').toUpperCase();
      if (method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST' } });
      if (!allowedUrl(url)) throw new TypeError('the MCP server is not on this site');
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, key) => {
        headers[key] = value;
      });
      const body = typeof init?.body === 'string' ? init.body : '';
      const answer = this.policy.allows(url)
        ? await this.#request(url, { method: 'POST', headers, body, maxBytes: 512 * 1024 }, false)
        : ({ ok: false, url, reason: 'robots', detail: 'robots.txt disallows it for our crawler' } as FetchFailure);
      if (!answer.ok) throw new TypeError(`${answer.reason}: ${answer.detail}`);
      const responseHeaders = new Headers();
      for (const [key, value] of Object.entries(answer.headers)) {
        if (typeof value === 'string') responseHeaders.set(key, value);
        else if (Array.isArray(value)) for (const v of value) responseHeaders.append(key, v);
      }
      const status = answer.status < 200 || answer.status > 599 ? 502 : answer.status;
      return new Response(status === 204 || status === 304 ? null : answer.body, { status, headers: responseHeaders });
    };
  }

  async #request(url: string, options: RequestOptions, follow: boolean): Promise<FetchOutcome> {
    const visited = new Set<string>();
    let current = url;
    for (let hop = 0; ; hop++) {
      if (visited.has(current)) return { ok: false, url, reason: 'redirect_loop', detail: 'the redirects come back to an address already visited' };
      visited.add(current);
      const answer = await this.#once(current, options);
      if (!answer.ok || answer.status < 300 || answer.status >= 400 || answer.status === 304) return answer;
      if (!follow) return answer;
      const location = answer.headers.location;
      if (typeof location !== 'string') return answer;
      if (hop >= this.settings.maxRedirects) return { ok: false, url, reason: 'too_many_redirects', detail: `more than ${this.settings.maxRedirects} redirects` };
      let next: string;
      try {
        next = new URL(location, current).toString();
      } catch {
        return { ok: false, url, reason: 'bad_url', detail: 'the redirect names no valid address' };
      }
      if (!this.onSite(next)) return { ok: false, url, reason: 'off_site', detail: 'redirected off the site' };
      if (!this.policy.allows(next)) {
        this.usage.skipped += 1;
        return { ok: false, url, reason: 'robots', detail: 'redirected to a path robots.txt disallows' };
      }
      current = next;
    }
  }

  async #once(url: string, options: RequestOptions): Promise<FetchOutcome> {
    const s = this.settings;
    const left = this.remainingMs();
    if (this.usage.requests >= s.maxRequestsPerSite || this.usage.bytes >= s.maxBytesPerSite || left <= 0) {
      this.usage.skipped += 1;
      throw new BudgetSpent(left <= 0 ? 'the check ran out of time' : 'the site\'s request or byte budget is spent');
    }
    const wait = this.#lastRequestAt + this.policy.crawlDelayMs - Date.now();
    if (wait > 0) {
      if (wait >= left) throw new BudgetSpent('the site\'s Crawl-delay leaves no time for another request');
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    this.usage.requests += 1;
    this.#lastRequestAt = Date.now();
    const maxBytes = Math.min(options.maxBytes ?? s.maxBytesPerResponse, s.maxBytesPerResponse, s.maxBytesPerSite - this.usage.bytes);
    try {
      const answer = await publicFetch(url, {
        method: options.method ?? 'GET',
        headers: {
          'user-agent': s.userAgent,
          accept: options.accept ?? 'application/json',
          ...(options.headers ?? {}),
        },
        ...(options.body !== undefined ? { body: options.body } : {}),
        timeoutMs: Math.max(1, Math.min(s.requestTimeoutMs, this.remainingMs())),
        maxBytes: Math.max(1, maxBytes),
        overflow: options.overflow ?? 'refuse',
        allowLoopback: this.#local,
        allowHttp: this.#local,
        redirects: 'return',
        ...(this.#local && s.localWeb ? { connectTo: s.localWeb } : {}),
      });
      this.usage.bytes += Buffer.byteLength(answer.body);
      const usage = answer.headers['content-usage'];
      this.headerOptOut ??= aiOptOutInHeader(typeof usage === 'string' ? usage : undefined);
      const type = answer.headers['content-type'];
      return {
        ok: true,
        url,
        status: answer.status,
        contentType: typeof type === 'string' ? type.toLowerCase() : '',
        body: answer.body,
        truncated: answer.truncated,
        headers: answer.headers,
      };
    } catch (error) {
      if (error instanceof PublicFetchError) {
        if (error.reason === 'too_large') this.usage.bytes += maxBytes;
        return { ok: false, url, reason: error.reason, detail: error.message };
      }
      throw error;
    }
  }
}
