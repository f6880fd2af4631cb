/**
 * The pages of the agentic check over plain HTTP (docs/web.md), against real checks of the local web
 * of sample sites: a result page in every state, built from the JSON it links as rel=alternate
 * (score, grade, the five answers with door and date, every capability, fixes, rank, doors); indexed
 * exactly when the result is (agent-ready and not opted out), noindex otherwise in the meta tag and
 * X-Robots-Tag; an opted-out or hidden site never named; 301 for another spelling and 404 for a
 * name that cannot be checked, as the JSON; the badge; "check again" as a plain form posting to
 * POST /check (303 to the result, the refusals as pages, forms from other sites refused); the
 * leaderboard with its scopes, fifty a page and the unnamed count; the score rules; links between
 * a business and its result; hostile text a site wrote inert.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalWeb, type LocalWeb } from '../src/demo/local-web/local-web-server.js';
import { SAMPLE_SITES, type SampleSite } from '../src/demo/local-web/sample-sites.js';
import { startDirectory, type TestDirectory } from './support/harness.js';

const HOUR = 3_600_000;
const HOSTILE_NAME = 'Padaria <script>alert(1)</script>"><img src=x onerror=alert(2)>';

/** A bakery whose name is markup: it is agent-ready, so it is named on the leaderboard and listed. */
const HOSTILE_SITE: SampleSite = {
  host: 'hostile-bakery.test',
  about: 'a bakery whose name and description are markup',
  pages: {
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
    '/': {
      type: 'text/html; charset=utf-8',
      body: `<!doctype html><html><head><title>x</title><script type="application/ld+json">${JSON.stringify({
        '@context': 'https://schema.org',
        '@type': 'Bakery',
        name: HOSTILE_NAME,
        description: '<script>alert(3)</script>',
        url: 'http://hostile-bakery.test/',
        address: { '@type': 'PostalAddress', addressLocality: 'Lisboa', addressCountry: 'PT' },
        geo: { '@type': 'GeoCoordinates', latitude: 38.72, longitude: -9.14 },
      }).replace(/</g, '\\u003c')}</script></head><body></body></html>`,
    },
  },
  mcp: [{ path: '/mcp', tools: [{ name: 'create_order' }, { name: 'send_message' }] }],
};

const CHECKED = ['padaria-aurora.test', 'salao-lume.test', 'cafe-central.test', 'agentdesk.test', 'pizzaria-napoli.test', 'opt-out-bakery.test', 'closed.test', 'hidden-owner.test', 'error503.test', 'hostile-bakery.test'];

let web: LocalWeb;
let t: TestDirectory;

function tagsOf(page: string): string[] {
  return [...page.matchAll(/<[a-zA-Z][^>]*>/g)].map(([tag]) => tag.replace(/"[^"]*"/g, '""'));
}

/** No markup of anyone else's: no inline script, no event handler attribute, no inline style, no javascript: link. */
function expectInert(page: string): void {
  for (const tag of tagsOf(page)) {
    expect(tag).not.toMatch(/^<script(?![^>]*\bsrc=)/i);
    expect(tag).not.toMatch(/\son[a-z]+\s*=/i);
    expect(tag).not.toMatch(/\sstyle\s*=/i);
  }
  expect(page).not.toContain('<script>alert');
  expect(page).not.toContain('<img src=x');
  expect(page).not.toMatch(/href="javascript:/i);
}

function hrefsOf(page: string): string[] {
  return [...page.matchAll(/<a [^>]*href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
}

const html = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

async function page(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${t.baseUrl}${path}`, { headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A form as a browser on our page sends it. */
async function postForm(fields: Record<string, string>, headers: Record<string, string> = {}, base = t.baseUrl): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${base}/check`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, 'sec-fetch-site': 'same-origin', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function expectIndexed(res: { headers: Headers; text: string }, indexed: boolean, label: string): void {
  expect(res.headers.get('x-robots-tag'), label).toBe(indexed ? null : 'noindex');
  expect(res.text, label).toContain(indexed ? '<meta name="robots" content="index,follow">' : '<meta name="robots" content="noindex,follow">');
}

beforeAll(async () => {
  web = await startLocalWeb({ sites: [...SAMPLE_SITES, HOSTILE_SITE] });
  t = await startDirectory({ checks: { localWeb: web.address, callerChecksPerHour: 100 } });
  for (const site of CHECKED) expect((await t.request('POST', '/check', { body: { url: site } })).status).toBe(202);
  await t.directory.checkWorker.drain();
  await t.directory.search.hour();
}, 120_000);

afterAll(async () => {
  await t?.close();
  await web?.close();
});

describe('a check result page', () => {
  it('shows a done result from its JSON: score, grade, the five answers with door and date, capabilities, fixes, rank, doors; indexed as the JSON says', async () => {
    const json = (await t.get('/b/padaria-aurora.test.json')).body;
    expect(json).toMatchObject({ state: 'done', indexable: true });
    const res = await page('/b/padaria-aurora.test');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expectIndexed(res, true, 'agent-ready');
    expect(res.text).toContain('<link rel="canonical" href="http://127.0.0.1/b/padaria-aurora.test">');
    expect(res.text).toContain('<link rel="alternate" type="application/json" href="http://127.0.0.1/b/padaria-aurora.test.json">');
    expect(res.headers.get('link')).toBe('<http://127.0.0.1/b/padaria-aurora.test.json>; rel="alternate"; type="application/json"');
    expect(res.text).toContain('<meta property="og:title" content="Agentic check of padaria-aurora.test">');
    expect(res.text).toContain('<meta property="og:url" content="http://127.0.0.1/b/padaria-aurora.test">');
    expect(res.text).toContain(`<p class="grade grade-${json.grade}"`);
    expect(res.text).toContain(`<p class="score-number">${json.agentic_score} `);
    // The five answers, each with its door and date.
    const answers = /<table class="answers">([\s\S]*?)<\/table>/.exec(res.text)![1]!;
    const rows = answers.split('<tr>').slice(2);
    expect(rows).toHaveLength(5);
    for (const [i, a] of (json.answers as any[]).entries()) {
      expect(rows[i]).toContain({ yes: 'Yes', partly: 'Partly', no: 'No', not_applicable: 'Does not apply' }[a.answer as string]);
      if (a.door) expect(rows[i]).toContain(html(a.door.url));
      expect(rows[i]).toContain(`datetime="${a.checked_at}"`);
    }
    expect(rows[0]).toContain('send the business a message?');
    expect(rows[2]).toContain('through its MCP server');
    // Every capability, and each fix with how.
    const capabilities = /<table class="capabilities">([\s\S]*?)<\/table>/.exec(res.text)![1]!;
    expect(capabilities.split('<tr').length - 2).toBe(json.capabilities.length);
    expect(capabilities).toContain(html('MCP tool create_order'));
    for (const fix of json.fixes) {
      expect(res.text).toContain(html(fix.title));
      expect(res.text).toContain(html(fix.how));
      expect(res.text).toContain(`+${fix.points} points`);
    }
    // Rank with links to its boards; the rules it was scored by.
    expect(res.text).toContain(`${json.rank.position} of ${json.rank.of} checked`);
    expect(hrefsOf(res.text)).toContain('/leaderboard?category=bakery&country=PT&place=lisboa');
    expect(hrefsOf(res.text)).toContain('/score-rules?version=1');
    // Listed: a link to its business page, and back.
    expect(hrefsOf(res.text)).toContain('/businesses/padaria-aurora.test');
    const business = await page('/businesses/padaria-aurora.test');
    expect(hrefsOf(business.text)).toContain('/b/padaria-aurora.test');
    expect(business.text).toContain(`Grade ${json.grade} · ${json.agentic_score} of 100`);
    // The badge and the snippet to copy; "check again" is a form posting to /check.
    expect(res.text).toContain('<img src="/b/padaria-aurora.test/badge.svg"');
    expect(res.text).toContain(html('<a href="http://127.0.0.1/b/padaria-aurora.test"><img src="http://127.0.0.1/b/padaria-aurora.test/badge.svg"'));
    expect(res.text).toMatch(/<form method="post" action="\/check" class="actions"><input type="hidden" name="url" value="padaria-aurora.test"><button type="submit" class="primary">Check again<\/button><\/form>/);
    expect(res.text).toContain('A site may be checked again one hour after its last check ended');
    // Own scripts only, and none needed: a finished result loads no script at all.
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.text).not.toContain('<script');
    expectInert(res.text);
    // ETag and 304, cached as long as its JSON.
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    expect((await page('/b/padaria-aurora.test', { 'if-none-match': res.headers.get('etag')! })).status).toBe(304);
  });

  it('is noindex, in the meta tag and X-Robots-Tag, whenever its JSON is not indexable', async () => {
    for (const [domain, state] of [
      ['pizzaria-napoli.test', 'done'],
      ['opt-out-bakery.test', 'done'],
      ['closed.test', 'blocked'],
      ['error503.test', 'failed'],
      ['hidden-owner.test', 'hidden'],
      ['never-checked.test', 'not_checked'],
    ] as const) {
      const json = await t.get(`/b/${domain}.json`);
      expect(json.body, domain).toMatchObject({ state, indexable: false });
      const res = await page(`/b/${domain}`);
      expect(res.status, domain).toBe(200);
      expectIndexed(res, false, domain);
      expectInert(res.text);
    }
  });

  it('never names an opted-out or hidden site, nor shows what it published', async () => {
    const optOut = await page('/b/opt-out-bakery.test');
    expect(optOut.text).not.toContain('Forno Secreto');
    expect(optOut.text).toContain('Its site tells AI systems not to use its content');
    expect(optOut.text).toContain('Not listed: its site tells AI systems to keep away.');
    // Its badge has the grade without the number.
    const badge = await page('/b/opt-out-bakery.test/badge.svg');
    const json = (await t.get('/b/opt-out-bakery.test.json')).body;
    expect(badge.text).toContain(`>${json.grade}</text>`);
    expect(badge.text).not.toContain(`· ${json.agentic_score}`);
    const hidden = await page('/b/hidden-owner.test');
    expect(hidden.text).not.toContain('Padaria Discreta');
    expect(hidden.text).toContain('The owner of this site hides its result');
    expect(hidden.text).not.toContain('action="/check"');
    for (const board of ['/leaderboard', '/leaderboard?country=PT&place=lisboa', '/leaderboard?category=bakery']) {
      const text = (await page(board)).text;
      expect(text, board).not.toContain('Forno Secreto');
      expect(text, board).not.toContain('opt-out-bakery.test');
      expect(text, board).not.toContain('Padaria Discreta');
    }
  });

  it('says why a check was blocked or failed, when it was checked and when it is checked again', async () => {
    const blocked = await page('/b/closed.test');
    expect(blocked.text).toContain('robots.txt keeps our crawler (svc-check) out');
    expect(blocked.text).toContain(html((await t.get('/b/closed.test.json')).body.reason));
    const failedJson = (await t.get('/b/error503.test.json')).body;
    const failed = await page('/b/error503.test');
    expect(failed.text).toContain('The check could not finish');
    expect(failed.text).toContain(`datetime="${failedJson.next_check_at}"`);
    expect(failed.text).toContain('action="/check"');
  });

  it('follows a check as it goes: queued with its place in the queue, checking, scoring; then not_checkable', async () => {
    expect((await t.request('POST', '/check', { body: { url: 'studio-foto.test' } })).status).toBe(202);
    t.clock.advance(1);
    expect((await t.request('POST', '/check', { body: { url: 'escola-idiomas.test' } })).status).toBe(202);
    const queued = await page('/b/escola-idiomas.test');
    expect(queued.text).toContain('Waiting in the queue: number 2.');
    expect(queued.text).toContain('data-check-progress="/b/escola-idiomas.test.json" data-state="queued" data-position="2"');
    // The one script that follows the check, from this server; the page works without it (reload).
    expect(queued.text).toMatch(/<script type="module" src="\/assets\/check-progress\.[\w-]+\.js"><\/script>/);
    expect(hrefsOf(queued.text)).toContain('/b/escola-idiomas.test');
    expect(queued.headers.get('cache-control')).toBe('public, max-age=0');
    expectIndexed(queued, false, 'queued');
    const script = /src="(\/assets\/check-progress\.[\w-]+\.js)"/.exec(queued.text)![1]!;
    const served = await page(script);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toContain('javascript');
    await t.directory.checkWorker.drain();

    const store = t.directory.store;
    const check = (await store.checks.get('cafe-central.test'))!;
    await store.checks.put({ ...check, state: 'checking', leaseUntil: t.clock.now() + 60_000 });
    const checking = await page('/b/cafe-central.test');
    expect(checking.text).toContain('The crawler is reading the site now');
    // While a re-check runs, the last result stays in view.
    expect(checking.text).toContain(`Grade <strong>${check.outcome!.grade}</strong> (${check.outcome!.score} of 100)`);
    await store.checks.put({ ...check, state: 'scoring', leaseUntil: t.clock.now() + 60_000 });
    expect((await page('/b/cafe-central.test')).text).toContain('what it found is being scored');
    await store.checks.put({ ...check, state: 'not_checkable', outcome: null, lastState: 'not_checkable', lastReason: 'The site cannot be reached: its name does not resolve.' });
    const unreachable = await page('/b/cafe-central.test');
    expect(unreachable.text).toContain('cannot be reached from the public internet');
    expect(unreachable.text).toContain('its name does not resolve');
    expectIndexed(unreachable, false, 'not_checkable');
    await store.checks.put(check);
  });

  it('answers another spelling 301 to the canonical page (and badge), and a name that cannot be checked 404', async () => {
    for (const [asked, canonical] of [
      ['/b/PADARIA-AURORA.test', '/b/padaria-aurora.test'],
      ['/b/www.padaria-aurora.test?lang=pt', '/b/padaria-aurora.test?lang=pt'],
      ['/b/shop.padaria-aurora.test/badge.svg', '/b/padaria-aurora.test/badge.svg'],
    ]) {
      const res = await page(asked!);
      expect(res.status, asked).toBe(301);
      expect(res.headers.get('location')).toBe(`http://127.0.0.1${canonical}`);
    }
    for (const name of ['localhost', 'bakery.example', 'co.uk', '127.0.0.1']) {
      const res = await page(`/b/${name}`);
      expect(res.status, name).toBe(404);
      expect(res.headers.get('content-type')).toContain('text/html');
      expectIndexed(res, false, name);
      expect((await page(`/b/${name}/badge.svg`)).status).toBe(404);
    }
  });

  it('speaks Portuguese when asked, the fixes included', async () => {
    const res = await page('/b/padaria-aurora.test?lang=pt');
    expect(res.text).toContain('<html lang="pt"');
    expect(res.text).toContain('Um agente pode');
    expect(res.text).toContain('O que mais subiria a pontuação');
    expect(res.text).toContain('o seu servidor MCP');
    expect(hrefsOf(res.text)).toContain('/businesses/padaria-aurora.test?lang=pt');
  });
});

describe('the badge', () => {
  it('is an SVG of our own words with the grade and score, cacheable with an ETag', async () => {
    const json = (await t.get('/b/padaria-aurora.test.json')).body;
    const res = await page('/b/padaria-aurora.test/badge.svg');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'");
    expect(res.text.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(res.text).toContain(`<title>agent check: ${json.grade} · ${json.agentic_score}</title>`);
    expect(res.text).not.toMatch(/<script|on[a-z]+=|href=/i);
    expect((await page('/b/padaria-aurora.test/badge.svg', { 'if-none-match': res.headers.get('etag')! })).status).toBe(304);
    expect((await page('/b/never-checked.test/badge.svg')).text).toContain('<title>agent check: not checked</title>');
    expect((await page('/b/closed.test/badge.svg')).text).toContain('<title>agent check: closed to us</title>');
  });
});

describe('"check a site" and "check again" as plain forms posting to POST /check', () => {
  it('queues a check and goes to its result page (303), which says so', async () => {
    const asked = await postForm({ url: 'https://www.oficina-rapida.test/contacts' });
    expect(asked.status).toBe(303);
    expect(asked.headers.get('location')).toBe('/b/oficina-rapida.test?asked=queued');
    const result = await page(asked.headers.get('location')!);
    expect(result.text).toContain('Your check is queued.');
    expect(result.text).toContain('<link rel="canonical" href="http://127.0.0.1/b/oficina-rapida.test">');
    await t.directory.checkWorker.drain();
    // Asked again within the hour: the latest result, and why it was not checked again.
    const again = await postForm({ url: 'oficina-rapida.test', lang: 'pt' });
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe('/b/oficina-rapida.test?asked=recent&lang=pt');
    const recent = await page(again.headers.get('location')!);
    expect(recent.text).toContain('a última verificação acabou há menos de uma hora');
    // JSON callers are answered as before.
    const json = await t.request('POST', '/check', { body: { url: 'oficina-rapida.test' } });
    expect(json.status).toBe(200);
    expect(json.body.state).toBe('done');
  });

  it('answers a site that cannot be checked with the form again, as typed, and why (400)', async () => {
    const refused = await postForm({ url: 'localhost"><script>alert(1)</script>' });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toContain('text/html');
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(refused.text).toContain('This site cannot be checked');
    expect(refused.text).toContain(`value="${html('localhost"><script>alert(1)</script>')}"`);
    expectInert(refused.text);
    expect((await postForm({ url: '' })).status).toBe(400);
  });

  it('refuses a form sent from another site and asks for nothing', async () => {
    for (const headers of [{ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, { origin: 'https://evil.example', 'sec-fetch-site': '' }]) {
      const res = await postForm({ url: 'ginasio-forte.test' }, headers);
      expect(res.status).toBe(403);
      expect(res.text).toContain('This form was sent from another site');
    }
    expect((await t.get('/b/ginasio-forte.test.json')).body.state).toBe('not_checked');
    // Forms go to /check only: other routes still refuse them.
    const other = await fetch(`${t.baseUrl}/v1/instances`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'domain=ginasio-forte.test' });
    expect(other.status).toBe(415);
  });

  it('says when a caller asked for too many checks (429 with Retry-After), as a page', async () => {
    const limited = await startDirectory({ checks: { localWeb: web.address, callerChecksPerHour: 1 } });
    try {
      expect((await postForm({ url: 'padaria-aurora.test' }, {}, limited.baseUrl)).status).toBe(303);
      const refused = await postForm({ url: 'cafe-central.test' }, {}, limited.baseUrl);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.headers.get('content-type')).toContain('text/html');
      expect(refused.text).toContain('Too many checks asked for');
      expect(refused.text).toMatch(/Ask again in \d+ min\./);
      expect(refused.text).toContain('value="cafe-central.test"');
    } finally {
      await limited.close();
    }
  });

  it('a burst refused before the form is read is a page too', async () => {
    const burst = await startDirectory({ rateLimit: 1 });
    try {
      let last = { status: 0, headers: new Headers(), text: '' };
      for (let i = 0; i < 31 && last.status !== 429; i++) last = await postForm({ url: 'localhost' }, {}, burst.baseUrl);
      expect(last.status).toBe(429);
      expect(last.headers.get('content-type')).toContain('text/html');
      expect(last.text).toContain('Too many checks asked for');
      expect(last.headers.get('retry-after')).toBeTruthy();
    } finally {
      await burst.close();
    }
  });

  it('is on the home page, the leaderboard and GET /check', async () => {
    for (const path of ['/', '/leaderboard', '/check']) {
      const res = await page(path);
      expect(res.status, path).toBe(200);
      expect(res.text, path).toContain('<form method="post" action="/check">');
      expect(res.text, path).toContain('name="url"');
    }
  });
});

describe('the leaderboard page', () => {
  it('shows the same businesses in the same order as its JSON, the unnamed count, software and AI apart, and says it is not the search order', async () => {
    const json = (await t.get('/leaderboard.json')).body;
    const res = await page('/leaderboard');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<link rel="alternate" type="application/json" href="http://127.0.0.1/leaderboard.json">');
    expect(res.text).toContain('<link rel="canonical" href="http://127.0.0.1/leaderboard">');
    expect(res.text).toContain('This is not the search order.');
    const shown = hrefsOf(res.text).filter((h) => h.startsWith('/b/')).map((h) => h.slice(3));
    expect(shown).toEqual(json.named.map((n: any) => n.domain));
    for (const n of json.named) expect(res.text).toContain(`<td class="num">${n.position}</td>`);
    expect(res.text).toContain(`${json.total} checked in this scope, ${json.total - json.unnamed} named.`);
    expect(res.text).toContain(`${json.unnamed} not named`);
    expect(json.software_and_ai).toBe(1);
    expect(res.text).toContain('One software or AI company is ranked apart');
    expect(hrefsOf(res.text)).toContain('/leaderboard?category=software-ai');
    expect(shown).not.toContain('agentdesk.test');
    expectIndexed(res, true, 'board');
    expect((await page('/leaderboard', { 'if-none-match': res.headers.get('etag')! })).status).toBe(304);
  });

  it('scopes by category, country and place through its GET form and links', async () => {
    const res = await page('/leaderboard');
    expect(res.text).toContain('<form class="card board-form" method="get" action="/leaderboard"');
    // Each row's category, country and place are links to their boards.
    expect(hrefsOf(res.text)).toContain('/leaderboard?category=bakery');
    expect(hrefsOf(res.text)).toContain('/leaderboard?country=PT');
    expect(hrefsOf(res.text)).toContain('/leaderboard?country=PT&place=lisboa');
    expect(hrefsOf((await page('/leaderboard?country=PT')).text)).toContain('/leaderboard?category=bakery&country=PT');
    for (const [query, jsonQuery] of [
      ['?category=software-ai', '?category=software-ai'],
      ['?country=pt&place=lisboa', '?country=pt&place=lisboa'],
      ['?category=bakery&country=PT', '?category=bakery&country=PT'],
    ]) {
      const scoped = await page(`/leaderboard${query}`);
      const json = (await t.get(`/leaderboard.json${jsonQuery}`)).body;
      expect(scoped.status, query).toBe(200);
      expect(hrefsOf(scoped.text).filter((h) => h.startsWith('/b/')).map((h) => h.slice(3)), query).toEqual(json.named.map((n: any) => n.domain));
      expect(scoped.text).toContain(`href="http://127.0.0.1/leaderboard.json${html(jsonQuery!)}"`);
    }
    // The canonical URL writes the scope one way.
    expect((await page('/leaderboard?place=lisboa&country=pt')).text).toContain('<link rel="canonical" href="http://127.0.0.1/leaderboard?country=PT&amp;place=lisboa">');
    const refused = await page('/leaderboard?place=lisboa');
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('place needs country');
    expect(refused.text).toContain('value="lisboa"');
    expectIndexed(refused, false, 'refused');
    expect((await page('/leaderboard?category=nothing')).status).toBe(400);
  });

  it('keeps a name the site wrote inert, here and wherever it shows', async () => {
    const json = (await t.get('/leaderboard.json?country=PT')).body;
    expect(json.named.map((n: any) => n.name)).toContain(HOSTILE_NAME);
    const res = await page('/leaderboard?country=PT');
    expect(res.text).toContain(html(HOSTILE_NAME));
    expectInert(res.text);
    const result = await page('/b/hostile-bakery.test');
    expect(result.status).toBe(200);
    expectInert(result.text);
    expect(result.text).not.toContain('Padaria <');
    const business = await page('/businesses/hostile-bakery.test');
    expect(business.status).toBe(200);
    expect(business.text).toContain(html(HOSTILE_NAME));
    expectInert(business.text);
  });

  it('names fifty a page, pages by links, and an empty page is not indexed', async () => {
    const store = t.directory.store;
    const model = (await store.checks.get('padaria-aurora.test'))!;
    for (let i = 0; i < 60; i++) {
      const domain = `padaria-${String(i).padStart(2, '0')}.test`;
      await store.checks.put({ ...model, domain, outcome: { ...model.outcome!, domain, score: 10 + i, facts: { ...model.outcome!.facts, name: { ...model.outcome!.facts.name!, v: `Padaria ${i}` } } } });
    }
    const first = (await t.get('/leaderboard.json?category=bakery')).body;
    expect(first.named).toHaveLength(50);
    const res = await page('/leaderboard?category=bakery');
    const rows = hrefsOf(res.text).filter((h) => h.startsWith('/b/'));
    expect(rows).toHaveLength(50);
    expect(hrefsOf(res.text)).toContain('/leaderboard?category=bakery&page=2');
    const second = await page('/leaderboard?category=bakery&page=2');
    const secondJson = (await t.get('/leaderboard.json?category=bakery&page=2')).body;
    expect(hrefsOf(second.text).filter((h) => h.startsWith('/b/')).map((h) => h.slice(3))).toEqual(secondJson.named.map((n: any) => n.domain));
    expect(hrefsOf(second.text)).toContain('/leaderboard?category=bakery');
    expect(second.text).toContain('<link rel="canonical" href="http://127.0.0.1/leaderboard?category=bakery&amp;page=2">');
    const empty = await page('/leaderboard?category=bakery&page=5');
    expect(empty.text).toContain('No business is named in this scope yet.');
    expectIndexed(empty, false, 'empty page');
  });

});

describe('the score rules page', () => {
  it('renders capabilities, groups and weights, profiles, formula, grades, fixes and changelog from its JSON', async () => {
    const rules = (await t.get('/v1/score-rules')).body;
    const res = await page('/score-rules');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<link rel="alternate" type="application/json" href="http://127.0.0.1/v1/score-rules">');
    expectIndexed(res, true, 'rules');
    for (const c of rules.capabilities) expect(res.text).toContain(html(c.question));
    for (const g of rules.groups) expect(res.text).toContain(`<code class="small muted">${g.id}</code></th><td class="num">${g.weight}`);
    for (const p of rules.profiles) expect(res.text).toContain(`<th scope="row">${html(p.label)}</th>`);
    expect(res.text).toContain(html(rules.formula));
    for (const g of rules.grades) expect(res.text).toContain(`<span class="grade-chip grade-${g.grade}">${g.grade}</span></th><td class="num">${g.min}</td>`);
    for (const fix of Object.values(rules.fixes.texts) as { title: string }[]) expect(res.text).toContain(html(fix.title));
    expect(hrefsOf(res.text)).toContain('/score-rules?version=1');
    expect(res.text).toContain(html(rules.not_certification));
    expectInert(res.text);
    const versioned = await page('/score-rules?version=1');
    expect(versioned.status).toBe(200);
    expect(versioned.text).toContain('<link rel="canonical" href="http://127.0.0.1/score-rules?version=1">');
    expect((await page('/score-rules?version=99')).status).toBe(404);
    const pt = await page('/score-rules?lang=pt');
    expect(pt.text).toContain('Grupos e pesos');
    expect(pt.text).toContain('<span lang="en">');
    expect((await page('/score-rules', { 'if-none-match': res.headers.get('etag')! })).status).toBe(304);
  });
});

describe('links and checking again', () => {
  it('every page links the leaderboard and the score rules', async () => {
    for (const path of ['/', '/categories', '/b/padaria-aurora.test', '/leaderboard', '/score-rules']) {
      const hrefs = hrefsOf((await page(path)).text);
      expect(hrefs, path).toContain('/leaderboard');
      expect(hrefs, path).toContain('/score-rules');
    }
  });

  it('check again after the hour: queued with the last result in view, then the new result', async () => {
    t.clock.advance(2 * HOUR);
    const asked = await postForm({ url: 'padaria-aurora.test' });
    expect(asked.headers.get('location')).toBe('/b/padaria-aurora.test?asked=queued');
    const queued = await page(asked.headers.get('location')!);
    expect(queued.text).toContain('Your check is queued.');
    // The last result stays in view while the re-check waits.
    expect(queued.text).toContain('Last result');
    await t.directory.checkWorker.drain();
    expect((await page('/b/padaria-aurora.test')).text).toContain('<p class="grade grade-');
  });
});
