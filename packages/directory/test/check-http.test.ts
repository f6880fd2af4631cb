/**
 * The agentic check over HTTP and MCP against the local web of sample sites (real sites on
 * 127.0.0.1, real MCP servers of the official SDK): every state of a check result, its fields,
 * found listings, the leaderboard, the stats counts, the owner's choice, the budgets, a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalWeb, type LocalWeb } from '../src/demo/local-web/local-web-server.js';
import { startDirectory, TestClock, type TestDirectory } from './support/harness.js';
import { mcpCall, textOf } from './support/mcp-client.js';

const HOUR = 3_600_000;
const CHECKED = [
  'padaria-aurora.test',
  'salao-lume.test',
  'cafe-central.test',
  'oficina-rapida.test',
  'loja-verde.test',
  'boutique-nord.test',
  'hotel-mar.test',
  'ginasio-forte.test',
  'agentdesk.test',
  'restaurante-tejo.test',
  'pizzaria-napoli.test',
  'livraria-sol.test',
  'clinica-sorriso.test',
  'opt-out-bakery.test',
  'usage-no.test',
  'closed.test',
  'hidden-owner.test',
  'error503.test',
  'florista-rosa.test',
];

let web: LocalWeb;
let t: TestDirectory;

beforeAll(async () => {
  web = await startLocalWeb();
  t = await startDirectory({ checks: { localWeb: web.address, callerChecksPerHour: 100 } });
  for (const site of CHECKED) {
    const asked = await t.request('POST', '/check', { body: { url: site } });
    expect(asked.status).toBe(202);
  }
  await t.directory.checkWorker.drain();
}, 120_000);

afterAll(async () => {
  await t?.close();
  await web?.close();
});

const result = async (domain: string) => (await t.get(`/b/${domain}.json`)).body;

describe('asking for a check', () => {
  it('queues a site: 202, Location of the result, state queued with its place in the queue and the budget', async () => {
    const first = await t.request('POST', '/check', { body: { url: 'https://www.studio-foto.test/contacts' } });
    expect(first.status).toBe(202);
    expect(first.headers.get('location')).toBe('http://127.0.0.1/b/studio-foto.test.json');
    expect(first.body).toMatchObject({ domain: 'studio-foto.test', state: 'queued', indexable: false, queue: { position: 1, budget: 'open' } });
    t.clock.advance(1_000);
    const second = await t.request('POST', '/check', { body: { url: 'escola-idiomas.test' } });
    expect(second.body.queue.position).toBe(2);
    // Asked again while queued: where it stands, not a second entry.
    const again = await t.request('POST', '/check', { body: { url: 'studio-foto.test' } });
    expect(again.status).toBe(202);
    expect(again.body.queue.position).toBe(1);
    expect((await result('escola-idiomas.test')).queue.position).toBe(2);
    await t.directory.checkWorker.drain();
    expect((await result('studio-foto.test')).state).toBe('done');
  });

  it('refuses what is not a checkable site with 400 and the field', async () => {
    for (const url of ['ftp://bakery.com/', '127.0.0.1', 'localhost', 'bakery.example', 'co.uk', 'not a domain', '']) {
      const refused = await t.request('POST', '/check', { body: { url } });
      expect(refused.status, url).toBe(400);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await t.request('POST', '/check', { body: {} })).status).toBe(400);
  });

  it('a check that ended within the hour answers its result (200) and when it may be asked again', async () => {
    const asked = await t.request('POST', '/check', { body: { url: 'padaria-aurora.test' } });
    expect(asked.status).toBe(200);
    expect(asked.body.state).toBe('done');
    expect(Date.parse(asked.body.check_again_from)).toBe(Date.parse(asked.body.checked_at) + HOUR);
  });
});

describe('GET /b/{domain}.json', () => {
  it('a done result has every field of the contract', async () => {
    const res = await t.get('/b/padaria-aurora.test.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBeTruthy();
    expect(res.headers.get('x-robots-tag')).toBeNull();
    const r = res.body;
    expect(r).toMatchObject({ domain: 'padaria-aurora.test', url: 'http://padaria-aurora.test/', state: 'done', indexable: true, grade: expect.stringMatching(/^[A-E]$/), level: 'bookable' });
    expect(Number.isInteger(r.agentic_score) && r.agentic_score >= 0 && r.agentic_score <= 100).toBe(true);
    expect(r.rules).toEqual({ version: 1, url: 'http://127.0.0.1/v1/score-rules?version=1' });
    expect(r.answers.map((a: any) => a.capability)).toEqual(['message', 'book', 'order', 'cancel', 'negotiate']);
    const order = r.answers.find((a: any) => a.capability === 'order');
    expect(order).toEqual({ capability: 'order', answer: 'yes', door: { type: 'mcp', url: 'http://padaria-aurora.test/mcp' }, how: expect.any(String), checked_at: r.checked_at });
    expect(r.answers.find((a: any) => a.capability === 'negotiate').answer).toBe('not_applicable');
    expect(r.capabilities).toHaveLength(20);
    const orderCap = r.capabilities.find((c: any) => c.id === 'order');
    expect(orderCap).toMatchObject({ group: 'core', state: 'yes', evidence: 'declared', basis: 'tool_name', via: 'MCP tool create_order' });
    expect(r.capabilities.find((c: any) => c.id === 'signup').state).toBe('na');
    // The score is the sum of the points as published, rounded.
    const points = r.capabilities.reduce((sum: number, c: any) => sum + c.points, 0);
    expect(Math.abs(points - r.agentic_score)).toBeLessThanOrEqual(1);
    expect(r.fixes.length).toBeGreaterThan(0);
    for (let i = 1; i < r.fixes.length; i++) expect(r.fixes[i - 1].points).toBeGreaterThanOrEqual(r.fixes[i].points);
    expect(r.doors).toEqual([expect.objectContaining({ type: 'mcp', url: 'http://padaria-aurora.test/mcp', status: 'live', level: 'bookable', kinds: expect.arrayContaining(['order', 'ask']), checked_at: r.checked_at })]);
    expect(r.rank).toMatchObject({ scope: { category: 'bakery', country: 'PT', place: 'lisboa' }, position: 1, of: 1 });
    expect(r.profile).toMatchObject({ id: 'food', from: 'category' });
    expect(r.listing).toEqual({ listed: true, url: 'http://127.0.0.1/v1/businesses/padaria-aurora.test', source: 'found' });
    expect((await t.get('/b/padaria-aurora.test.json', { 'if-none-match': res.headers.get('etag') as string })).status).toBe(304);
  });

  it('a site never checked is not_checked, and reading it starts no check', async () => {
    const before = web.log.length;
    const res = await t.get('/b/ginasio-forte-novo.test.json');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ domain: 'ginasio-forte-novo.test', state: 'not_checked', indexable: false });
    expect(res.headers.get('x-robots-tag')).toBe('noindex');
    await t.directory.checkWorker.drain();
    expect((await result('ginasio-forte-novo.test')).state).toBe('not_checked');
    expect(web.log.slice(before).some((r) => r.host.includes('ginasio-forte-novo'))).toBe(false);
  });

  it('another spelling of a domain answers 301 to the canonical result; a site that cannot be checked 404', async () => {
    for (const spelling of ['PADARIA-AURORA.test', 'www.padaria-aurora.test', 'shop.padaria-aurora.test']) {
      const res = await fetch(`${t.baseUrl}/b/${spelling}.json`, { redirect: 'manual' });
      expect(res.status, spelling).toBe(301);
      expect(res.headers.get('location')).toBe('http://127.0.0.1/b/padaria-aurora.test.json');
    }
    for (const name of ['127.0.0.1', 'localhost', 'bakery.example', 'co.uk', 'a..b']) {
      const res = await t.get(`/b/${name}.json`);
      expect(res.status, name).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  it('states blocked, hidden and failed say why, with nothing of the site', async () => {
    const blocked = await result('closed.test');
    expect(blocked).toMatchObject({ state: 'blocked', indexable: false, reason: expect.stringContaining('robots.txt') });
    expect(blocked.agentic_score).toBeUndefined();
    expect(web.log.filter((r) => r.host === 'closed.test').map((r) => r.path)).toEqual(['/robots.txt']);
    const hidden = await result('hidden-owner.test');
    expect(hidden).toMatchObject({ state: 'hidden', indexable: false });
    expect(hidden.agentic_score).toBeUndefined();
    const failed = await result('error503.test');
    expect(failed).toMatchObject({ state: 'failed', indexable: false, reason: expect.stringContaining('robots.txt') });
    expect(Date.parse(failed.next_check_at)).toBeGreaterThan(Date.parse(failed.checked_at));
  });

  it('states checking and scoring show as the check goes, with the last result', async () => {
    const store = t.directory.store;
    const check = (await store.checks.get('cafe-central.test'))!;
    await store.checks.put({ ...check, state: 'checking', leaseUntil: t.clock.now() + 60_000 });
    expect((await result('cafe-central.test'))).toMatchObject({ state: 'checking', last: { state: 'done', agentic_score: check.outcome!.score } });
    await store.checks.put({ ...check, state: 'scoring', leaseUntil: t.clock.now() + 60_000 });
    expect((await result('cafe-central.test')).state).toBe('scoring');
    await store.checks.put(check);
  });

  it('an AI opt-out is checked but not indexable, not listed, not named, and keeps nothing it published', async () => {
    for (const domain of ['opt-out-bakery.test', 'usage-no.test']) {
      const res = await t.get(`/b/${domain}.json`);
      expect(res.body).toMatchObject({ state: 'done', indexable: false, ai_opt_out: true, listing: { listed: false } });
      expect(res.headers.get('x-robots-tag')).toBe('noindex');
      expect(JSON.stringify(res.body)).not.toContain('Forno Secreto');
      expect((await t.get(`/v1/businesses/${domain}`)).status).toBe(404);
    }
    const board = await t.get('/leaderboard.json');
    expect(board.body.named.map((n: any) => n.domain)).not.toContain('opt-out-bakery.test');
  });
});

describe('found listings', () => {
  it('a business checked at askable or above is listed as found with its own facts, no street, phone or e-mail', async () => {
    const res = await t.get('/v1/businesses/padaria-aurora.test');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-robots-tag')).toBe('noindex');
    const l = res.body;
    expect(l).toMatchObject({ domain: 'padaria-aurora.test', name: 'Padaria Aurora', source: 'found', claimed: false, city: 'Lisboa', country: 'PT', categories: ['bakery'], level: 'bookable' });
    expect(l.found).toEqual({ note: expect.stringMatching(/^found on its own website · not a member · checked \d{4}-\d{2}-\d{2}$/), checked_at: expect.any(String), about_url: 'http://127.0.0.1/about/found/padaria-aurora.test' });
    expect(l.address?.street).toBeUndefined();
    const text = JSON.stringify(l);
    expect(text).not.toContain('Rua da Prata');
    expect(text).not.toContain('213 000 111');
    for (const fact of l.facts) expect(fact).toMatchObject({ field: expect.any(String), src: expect.stringMatching(/^(declared|seen|probably)$/), at: expect.any(String) });
    const name = l.facts.find((f: any) => f.field === 'name');
    expect(name).toMatchObject({ v: 'Padaria Aurora', src: 'seen', url: 'http://padaria-aurora.test/', via: 'schema.org JSON-LD' });
    expect(l.hours.timezone).toBe('Europe/Lisbon');
    expect((await t.get('/about/found/padaria-aurora.test')).status).toBe(200);
  });

  it('a readable site, a regulated category, a hidden result and a failed check are not listed', async () => {
    for (const domain of ['pizzaria-napoli.test', 'livraria-sol.test', 'clinica-sorriso.test', 'hidden-owner.test', 'error503.test', 'closed.test']) {
      expect((await t.get(`/v1/businesses/${domain}`)).status, domain).toBe(404);
    }
    expect((await result('clinica-sorriso.test')).listing.listed).toBe(false);
  });

  it('a member takes the place of a found entry for the same registrable domain', async () => {
    const store = t.directory.store;
    expect((await t.get('/v1/businesses/salao-lume.test')).status).toBe(200);
    await store.instances.put({
      domain: 'book.salao-lume.test', origin: 'http://book.salao-lume.test', status: 'verified', manifest: null, manifestUrl: 'http://book.salao-lume.test/.well-known/agent-inbox.json',
      listingId: null, registeredAt: t.clock.now(), verifiedAt: t.clock.now(), lastCheckedAt: null, lastPingAt: null, failCount: 0, attempts: 1, nextAttemptAt: null, lastError: null, delistedAt: null, dormantSince: null, software: null, counts: null,
    });
    t.clock.advance(2 * HOUR);
    expect((await t.request('POST', '/check', { body: { url: 'salao-lume.test' } })).status).toBe(202);
    await t.directory.checkWorker.drain();
    const gone = await t.get('/v1/businesses/salao-lume.test');
    expect(gone.status).toBe(404);
    expect((await result('salao-lume.test')).listing.listed).toBe(false);
  });
});

describe('the search order', () => {
  it('never reads the score: found businesses come in the published order (their shuffle), whatever they scored', async () => {
    await t.directory.search.hour();
    const page = (await t.get('/v1/businesses?source=found&limit=100')).body.businesses as any[];
    expect(page.length).toBeGreaterThanOrEqual(5);
    for (const l of page) expect(l.agentic_score).toBeUndefined();
    const byShuffle = [...page].sort((a, b) => (a.rank_shuffle < b.rank_shuffle ? -1 : 1)).map((l) => l.domain);
    expect(page.map((l) => l.domain)).toEqual(byShuffle);
    const scores = await Promise.all(page.map(async (l) => (await result(l.domain)).agentic_score as number));
    // The scores are not in order (else this test would prove nothing about them).
    expect(scores.some((score, i) => i > 0 && score > (scores[i - 1] as number))).toBe(true);
  });
});

describe('GET /leaderboard.json', () => {
  it('orders by score, then most recent check, then domain; names only agent-ready businesses that did not opt out', async () => {
    const board = (await t.get('/leaderboard.json')).body;
    expect(board).toMatchObject({ scope: { kind: 'local_and_retail' }, rules: { version: 1 }, order: expect.any(String), not_search_order: expect.any(String), page: 1, next_page: null });
    const named = board.named;
    for (let i = 1; i < named.length; i++) {
      const [a, b] = [named[i - 1], named[i]];
      expect(a.position).toBeLessThan(b.position);
      expect(a.score > b.score || (a.score === b.score && (a.checked_at > b.checked_at || (a.checked_at === b.checked_at && a.domain < b.domain)))).toBe(true);
    }
    expect(board.total).toBe(named.length + board.unnamed);
    expect(named.map((n: any) => n.domain)).not.toContain('agentdesk.test');
    expect(board.software_and_ai).toBe(1);
    for (const n of named) {
      const r = await result(n.domain);
      expect(r.indexable).toBe(true);
      expect(n).toMatchObject({ score: r.agentic_score, grade: r.grade, result_url: `http://127.0.0.1/b/${n.domain}.json`, name: expect.any(String) });
      expect(r.rank.overall.position).toBe(n.position);
    }
    // Unnamed: readable-only sites and opt-outs are counted, never named.
    for (const d of ['pizzaria-napoli.test', 'livraria-sol.test', 'opt-out-bakery.test']) expect(named.map((n: any) => n.domain)).not.toContain(d);
    expect(board.unnamed).toBeGreaterThanOrEqual(3);
  });

  it('scopes by category, country and place; software and AI on its own board', async () => {
    const software = (await t.get('/leaderboard.json?category=software-ai')).body;
    expect(software.named.map((n: any) => n.domain)).toEqual(['agentdesk.test']);
    expect(software.scope).toEqual({ category: 'software-ai' });
    const lisbon = (await t.get('/leaderboard.json?country=PT&place=lisboa')).body;
    expect(lisbon.scope).toEqual({ kind: 'local_and_retail', country: 'PT', place: 'lisboa' });
    expect(lisbon.named.length).toBeGreaterThan(0);
    for (const n of lisbon.named) expect(n.place).toBe('lisboa');
    const spain = (await t.get('/leaderboard.json?country=es')).body;
    expect(spain.named.map((n: any) => n.domain)).toEqual(['cafe-central.test']);
    expect((await t.get('/leaderboard.json?page=2')).body).toMatchObject({ page: 2, named: [], next_page: null });
  });

  it('refuses bad parameters with 400', async () => {
    for (const query of ['place=lisboa', 'page=21', 'page=0', 'category=nothing', 'country=PRT', 'place=Lisboa&country=PT']) {
      const res = await t.get(`/leaderboard.json?${query}`);
      expect(res.status, query).toBe(400);
    }
  });
});

describe('GET /v1/stats directory block', () => {
  it('counts from check results and members by the contract, at most every ten minutes', async () => {
    t.clock.advance(11 * 60_000);
    await t.directory.search.hour();
    const stats = (await t.get('/v1/stats')).body.directory;
    const docs = await Promise.all(CHECKED.concat(['studio-foto.test', 'escola-idiomas.test']).map(result));
    // book.salao-lume.test is a verified instance without a listing: no member the directory lists, so salao-lume.test's check counts.
    const counted = docs.filter((d) => d.state === 'done' && d.profile?.category);
    const ready = counted.filter((d) => d.agent_ready && !d.ai_opt_out);
    expect(stats.checked).toBe(counted.length);
    expect(stats.agent_ready).toBe(ready.length);
    expect(stats.software_and_ai).toBe(ready.filter((d) => d.profile.category.group === 'software-ai').length);
    for (const capability of ['message', 'book', 'order', 'cancel', 'change', 'negotiate', 'catalogue', 'availability', 'pay', 'track', 'return']) {
      expect(stats.capabilities[capability], capability).toBe(ready.filter((d) => d.capabilities.some((c: any) => c.id === capability && c.state === 'yes' && !c.experimental)).length);
    }
    for (const door of ['inbox', 'mcp', 'a2a', 'openapi', 'ucp', 'acp', 'webmcp']) {
      expect(stats.doors[door], door).toBe(ready.filter((d) => d.doors.some((x: any) => x.type === door && x.status === 'live')).length);
    }
    // Taken again only after ten minutes.
    const asOf = stats.as_of;
    t.clock.advance(60_000);
    expect((await t.get('/v1/stats')).body.directory.as_of).toBe(asOf);
  });
});

describe('the MCP doors', () => {
  it('check_business queues a check and get_check_result reads the same document as REST, fenced as untrusted', async () => {
    const asked = await mcpCall(t.baseUrl, 'check_business', { url: 'endless-tools.test' });
    expect(asked.isError).toBeFalsy();
    expect(asked.structuredContent).toMatchObject({ domain: 'endless-tools.test', state: 'queued', queue: { position: 1 } });
    expect(textOf(asked).startsWith('<<<UNTRUSTED')).toBe(true);
    await t.directory.checkWorker.drain();
    const read = await mcpCall(t.baseUrl, 'get_check_result', { domain: 'endless-tools.test' });
    expect(read.structuredContent).toEqual(await result('endless-tools.test'));
    const board = await mcpCall(t.baseUrl, 'get_leaderboard', { category: 'software-ai' });
    expect(board.structuredContent.named[0].domain).toBe('agentdesk.test');
    const refused = await mcpCall(t.baseUrl, 'check_business', { url: 'localhost' });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent.error.status).toBe(400);
  });
});

describe('budgets, the owner and restarts', () => {
  it('the owner hides a result at once by its file and POST /check/visibility, and shows it again', async () => {
    const sites = [
      ...web.sites.filter((s) => s.host !== 'padaria-aurora.test'),
      { ...web.sites.find((s) => s.host === 'padaria-aurora.test')!, pages: { ...web.sites.find((s) => s.host === 'padaria-aurora.test')!.pages, '/.well-known/svc-check.json': { type: 'application/json', body: '{"result":"hidden"}' } } },
    ];
    const ownWeb = await startLocalWeb({ sites });
    const own = await startDirectory({ checks: { localWeb: ownWeb.address } });
    try {
      // The result before the owner's file: done and listed.
      const beforeWeb = await startLocalWeb();
      await own.close({ removeData: false });
      const first = await startDirectory({ dataDir: own.dataDir, checks: { localWeb: beforeWeb.address } });
      await first.request('POST', '/check', { body: { url: 'padaria-aurora.test' } });
      await first.directory.checkWorker.drain();
      expect((await first.get('/b/padaria-aurora.test.json')).body.state).toBe('done');
      await first.close({ removeData: false });
      await beforeWeb.close();
      const after = await startDirectory({ dataDir: own.dataDir, checks: { localWeb: ownWeb.address } });
      const hidden = await after.request('POST', '/check/visibility', { body: { domain: 'padaria-aurora.test' } });
      expect(hidden.status).toBe(200);
      expect(hidden.body.state).toBe('hidden');
      expect((await after.get('/b/padaria-aurora.test.json')).body.state).toBe('hidden');
      expect((await after.get('/v1/businesses/padaria-aurora.test')).status).toBe(404);
      const none = await after.request('POST', '/check/visibility', { body: { domain: 'cafe-central.test' } });
      expect(none.status).toBe(400);
      await after.close();
    } finally {
      await ownWeb.close();
    }
  });

  it('per caller: more new checks than allowed in an hour are refused 429 with Retry-After', async () => {
    const limited = await startDirectory({ checks: { localWeb: web.address, callerChecksPerHour: 2 } });
    try {
      expect((await limited.request('POST', '/check', { body: { url: 'padaria-aurora.test' } })).status).toBe(202);
      expect((await limited.request('POST', '/check', { body: { url: 'cafe-central.test' } })).status).toBe(202);
      const refused = await limited.request('POST', '/check', { body: { url: 'hotel-mar.test' } });
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Asking again for a queued check costs nothing.
      expect((await limited.request('POST', '/check', { body: { url: 'padaria-aurora.test' } })).status).toBe(202);
    } finally {
      await limited.close();
    }
  });

  it('the daily budget bounds the crawler, and the result says so', async () => {
    const clock = new TestClock();
    const bounded = await startDirectory({ clock, checks: { localWeb: web.address, dailyBudget: 1 } });
    try {
      await bounded.request('POST', '/check', { body: { url: 'padaria-aurora.test' } });
      clock.advance(1_000);
      await bounded.request('POST', '/check', { body: { url: 'cafe-central.test' } });
      await bounded.directory.checkWorker.drain();
      const waiting = (await bounded.get('/b/cafe-central.test.json')).body;
      expect(waiting).toMatchObject({ state: 'queued', queue: { position: 1, budget: 'spent' } });
      expect(waiting.queue.retry_after_s).toBeGreaterThan(0);
      expect(waiting.queue.retry_after_s).toBeLessThanOrEqual(86_400);
      clock.advance(waiting.queue.retry_after_s * 1000);
      await bounded.directory.checkWorker.drain();
      expect((await bounded.get('/b/cafe-central.test.json')).body.state).toBe('done');
    } finally {
      await bounded.close();
    }
  });

  it('a check held by a worker that stopped is taken again after a restart', async () => {
    const first = await startDirectory({ checks: { localWeb: web.address } });
    await first.request('POST', '/check', { body: { url: 'hotel-mar.test' } });
    const claimed = await first.directory.checks.claim(1);
    expect(claimed.map((c) => c.domain)).toEqual(['hotel-mar.test']);
    expect((await first.get('/b/hotel-mar.test.json')).body.state).toBe('checking');
    await first.close({ removeData: false });
    const clock = new TestClock();
    clock.advance(5 * 60_000);
    const second = await startDirectory({ dataDir: first.dataDir, clock, checks: { localWeb: web.address } });
    try {
      await second.directory.checkWorker.drain();
      expect((await second.get('/b/hotel-mar.test.json')).body.state).toBe('done');
    } finally {
      await second.close();
    }
  });

  it('without the development setting no .test site can be checked', async () => {
    const production = await startDirectory();
    try {
      expect((await production.request('POST', '/check', { body: { url: 'padaria-aurora.test' } })).status).toBe(400);
      expect((await production.get('/b/padaria-aurora.test.json')).status).toBe(404);
    } finally {
      await production.close();
    }
  });
});
