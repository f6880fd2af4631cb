/**
 * Every link on the directory's pages answers (issue 38: business pages linked their category to
 * /categories/<place category>, a 404 on every one). The pages are walked from the home page in
 * English and in Portuguese, as a person clicking would: every internal link on every page walked is
 * fetched as a browser asks (Accept: text/html…) and must answer below 400; pages are walked up to a
 * few of each shape of address, so every kind of page is read without reading all 600 businesses.
 */
import { parseDocument } from 'htmlparser2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { startLocalWeb, type LocalWeb } from '../src/demo/local-web/local-web-server.js';
import { startDirectory, TestClock, type TestDirectory } from './support/harness.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
/** Pages of one shape (path with its variable parts blanked, and the names of its query) walked at most. */
const WALKED_PER_SHAPE = 6;
const MAX_CHECKED = 4_000;

interface Element {
  name?: string;
  attribs?: Record<string, string>;
  children?: Element[];
}

function linksOf(node: Element, into: { href: string; rel: string }[] = []): { href: string; rel: string }[] {
  if (node.attribs) {
    if ((node.name === 'a' || node.name === 'link') && node.attribs.href) into.push({ href: node.attribs.href, rel: node.attribs.rel ?? '' });
    if ((node.name === 'script' || node.name === 'img') && node.attribs.src) into.push({ href: node.attribs.src, rel: 'src' });
  }
  for (const child of node.children ?? []) linksOf(child, into);
  return into;
}

/** /businesses/x.test?lang=pt → /businesses/*?lang ; /?q=cafe&cursor=… → /?cursor&q */
function shapeOf(url: URL): string {
  const path = url.pathname
    .split('/')
    .map((part, i) => (i >= 2 && part !== '' ? '*' : part))
    .join('/');
  return `${path}?${[...new Set(url.searchParams.keys())].sort().join('&')}`;
}

describe('every link on the pages answers', () => {
  let d: TestDirectory;
  let web: LocalWeb;

  beforeAll(async () => {
    const clock = new TestClock();
    web = await startLocalWeb();
    d = await startDirectory({ clock, publicAtListenAddress: true, listings: generateListings({ count: 400, seed: 38, nowMs: clock.now(), placeCategoryOf: taxonomyCategoryPicker() }), checks: { localWeb: web.address, callerChecksPerHour: 100 } });
    for (const site of ['salao-lume.test', 'cafe-central.test', 'agentdesk.test', 'closed.test']) await d.request('POST', '/check', { body: { url: site } });
    await d.directory.checkWorker.drain();
    await d.directory.search.hour();
  }, 120_000);

  afterAll(async () => {
    await d?.close();
    await web?.close();
  });

  it('walks the pages from the home page, in English and Portuguese, and follows each link', async () => {
    const origin = new URL(d.baseUrl).origin;
    const status = new Map<string, number>();
    const brokenLinks: string[] = [];
    const walkedShapes = new Map<string, number>();
    const queue: string[] = ['/', '/?lang=pt'];
    const walked = new Set<string>();
    const categoryLinksOfBusinesses = new Set<string>();
    const fetchPage = async (path: string) => {
      const response = await fetch(`${origin}${path}`, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
      const body = response.headers.get('content-type')?.startsWith('text/html') ? await response.text() : (await response.arrayBuffer(), null);
      status.set(path, response.status);
      return { status: response.status, html: body };
    };
    while (queue.length > 0) {
      const path = queue.shift() as string;
      if (walked.has(path)) continue;
      walked.add(path);
      const page = await fetchPage(path);
      if (page.html === null || page.status >= 400) continue;
      for (const { href, rel } of linksOf(parseDocument(page.html) as unknown as Element)) {
        if (href.startsWith('#') || href.startsWith('mailto:')) continue;
        const target = new URL(href, `${origin}${path}`);
        if (target.origin !== origin) continue;
        const local = `${target.pathname}${target.search}`;
        if (path.startsWith('/businesses/') && target.pathname.startsWith('/c/')) categoryLinksOfBusinesses.add(local);
        if (!status.has(local)) {
          if (status.size >= MAX_CHECKED) continue;
          const answered = await fetchPage(local);
          if (answered.status >= 400) brokenLinks.push(`${path} → ${local} (${rel || 'a'}): ${answered.status}`);
        } else if ((status.get(local) as number) >= 400) {
          brokenLinks.push(`${path} → ${local}: ${status.get(local)}`);
        }
        // Walk on through pages a person reads (not the JSON, the scripts or the images).
        if (rel !== '' || walked.has(local)) continue;
        const shape = shapeOf(target);
        const seen = walkedShapes.get(shape) ?? 0;
        if (seen >= WALKED_PER_SHAPE) continue;
        walkedShapes.set(shape, seen + 1);
        queue.push(local);
      }
    }
    expect([...new Set(brokenLinks)]).toEqual([]);
    // The walk reached every kind of page: businesses, a category's own page, check results, boards, rules, stats.
    const shapes = [...walkedShapes.keys()].join(' ');
    for (const shape of ['/businesses/*', '/c/*', '/categories/*', '/b/*', '/leaderboard', '/ranking', '/score-rules', '/stats']) expect(shapes).toContain(shape);
    // Business pages' own category links were among those followed.
    expect(categoryLinksOfBusinesses.size).toBeGreaterThan(0);
    expect(status.size).toBeGreaterThan(300);
  }, 240_000);
});
