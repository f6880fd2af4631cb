/**
 * What a site's robots.txt tells our crawler (RFC 9309 through robots-parser): which paths it may
 * read, how long to wait between requests, and whether the site tells AI systems to keep away.
 *
 * AI opt-out, exactly as the directory honours it: a `Content-Signal` line with `ai-input=no` or
 * `ai-train=no`, or a `Content-Usage` line (IETF AI preferences) saying no to AI training or use
 * (`train-ai=n`, `train-genai=n`, `ai-use=n`, `ai-input=n`, or `bots=n` for all automated use), in
 * the group that applies to our user agent (its own group when there is one, else `*`) or outside
 * any group, site-wide (no path, or `/`). Such a site is checked (its doors are for agents) but
 * never listed, never named and its result is not to be indexed; nothing it publishes is kept.
 */
import { createRequire } from 'node:module';

/** robots-parser is CommonJS whose types declare an ES default export; it is loaded as what it is. */
interface RobotsRules {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
}
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, text: string) => RobotsRules;

export interface RobotsPolicy {
  /** Whether our crawler may read this URL. */
  allows(url: string): boolean;
  /** Milliseconds to wait between two requests (Crawl-delay), 0 when none. */
  crawlDelayMs: number;
  /** The site tells AI systems not to use or train on its content. */
  aiOptOut: boolean;
  /** Why, in our words (never the site's text). */
  aiOptOutReason: string | null;
  /** The whole site is closed to our crawler (Disallow: / for us). */
  closedToUs: boolean;
}

/** A robots.txt that says nothing: everything allowed (RFC 9309 §2.3.1.3: 4xx, no file). */
export const OPEN_POLICY: RobotsPolicy = { allows: () => true, crawlDelayMs: 0, aiOptOut: false, aiOptOutReason: null, closedToUs: false };

const SIGNAL_NO = new Set(['ai-input', 'ai-train']);
const USAGE_NO = new Set(['train-ai', 'train-genai', 'ai-use', 'ai-input', 'bots']);

interface Group {
  agents: string[];
  lines: { field: string; value: string }[];
}

function groupsOf(text: string): { groups: Group[]; outside: { field: string; value: string }[] } {
  const groups: Group[] = [];
  const outside: { field: string; value: string }[] = [];
  let current: Group | null = null;
  let lastWasAgent = false;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (field === 'user-agent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], lines: [] };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (field === 'sitemap') continue;
    (current ? current.lines : outside).push({ field, value });
  }
  return { groups, outside };
}

/** The signal lines that apply to `token`: its own group, else the `*` group, and lines outside any group. */
function applicableLines(text: string, token: string): { field: string; value: string }[] {
  const { groups, outside } = groupsOf(text);
  const own = groups.filter((g) => g.agents.some((a) => a === token.toLowerCase()));
  const chosen = own.length > 0 ? own : groups.filter((g) => g.agents.includes('*'));
  return [...outside, ...chosen.flatMap((g) => g.lines)];
}

/** `ai-input=no, search=yes` → pairs, lower case. */
function pairs(value: string): [string, string][] {
  return value
    .split(/[,;]/)
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part.includes('='))
    .map((part) => {
      const [key = '', v = ''] = part.split('=', 2);
      return [key.trim(), v.trim().replace(/^"|"$/g, '')] as [string, string];
    });
}

export function aiOptOutIn(text: string, token: string): string | null {
  for (const { field, value } of applicableLines(text, token)) {
    if (field === 'content-signal') {
      for (const [key, v] of pairs(value)) if (SIGNAL_NO.has(key) && v === 'no') return `robots.txt has a Content-Signal with ${key}=no`;
    }
    if (field === 'content-usage') {
      // An optional path comes first; only a site-wide preference counts.
      const match = /^(\/\S*)\s+(.*)$/.exec(value);
      const path = match ? match[1] : '/';
      if (path !== '/' && path !== '/*') continue;
      for (const [key, v] of pairs(match ? (match[2] as string) : value)) if (USAGE_NO.has(key) && v === 'n') return `robots.txt has a Content-Usage with ${key}=n`;
    }
  }
  return null;
}

/** The AI opt-out of a Content-Usage HTTP header (the same vocabulary, on one answer). */
export function aiOptOutInHeader(value: string | undefined): string | null {
  if (!value) return null;
  for (const [key, v] of pairs(value)) if (USAGE_NO.has(key) && (v === 'n' || v === 'no')) return `the site answers with a Content-Usage header with ${key}=n`;
  return null;
}

export function robotsPolicy(robotsUrl: string, text: string, token: string, maxDelayMs: number): RobotsPolicy {
  const robots = robotsParser(robotsUrl, text);
  const delaySec = robots.getCrawlDelay(token);
  const reason = aiOptOutIn(text, token);
  const origin = new URL(robotsUrl).origin;
  return {
    allows: (url) => robots.isAllowed(url, token) !== false,
    crawlDelayMs: typeof delaySec === 'number' && Number.isFinite(delaySec) && delaySec > 0 ? Math.min(delaySec * 1000, maxDelayMs) : 0,
    aiOptOut: reason !== null,
    aiOptOutReason: reason,
    closedToUs: robots.isAllowed(`${origin}/`, token) === false && robots.isAllowed(`${origin}/.well-known/agent-card.json`, token) === false,
  };
}
