/**
 * The agentic check over HTTP, second part (issue 14): a door's status across checks (failing after
 * three failures in seven days, counting for nothing then; gone after thirty days failing; kept
 * across a restart; shown in the result JSON and page), the budgets of POST /check/visibility (per
 * caller and per site, 429 with Retry-After), and sites the operator suppressed (not checked,
 * shown, ranked or counted).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalWeb, type LocalWeb } from '../src/demo/local-web/local-web-server.js';
import { SAMPLE_SITES, type SampleSite } from '../src/demo/local-web/sample-sites.js';
import { testDatabaseUrl } from '../../../test-support/test-database.js';
import { startDirectory, TestClock, type TestDirectory } from './support/harness.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The sample sites, with padaria-aurora's MCP server (its only door) made breakable. */
function breakableWeb(): { sites: SampleSite[]; mcp: { broken?: boolean } } {
  const padaria = SAMPLE_SITES.find((s) => s.host === 'padaria-aurora.test')!;
  const mcp = { ...padaria.mcp![0]! };
  return { sites: [...SAMPLE_SITES.filter((s) => s !== padaria), { ...padaria, mcp: [mcp] }], mcp };
}

describe('a door across checks', () => {
  let web: LocalWeb;
  let mcp: { broken?: boolean };
  beforeAll(async () => {
    const breakable = breakableWeb();
    mcp = breakable.mcp;
    web = await startLocalWeb({ sites: breakable.sites });
  });
  afterAll(async () => {
    await web?.close();
  });

  it('stays live on its last answer through two failures, is failing at the third in seven days, gone after thirty days, live again when it answers; durable across a restart', async () => {
    const clock = new TestClock();
    let t: TestDirectory = await startDirectory({ clock, checks: { localWeb: web.address } });
    const doc = async () => (await t.get('/b/padaria-aurora.test.json')).body;
    const mcpDoor = (r: any) => r.doors.find((d: any) => d.type === 'mcp');
    try {
      await t.request('POST', '/check', { body: { url: 'padaria-aurora.test' } });
      await t.directory.checkWorker.drain();
      const first = await doc();
      const firstAt = first.checked_at;
      expect(mcpDoor(first)).toMatchObject({ status: 'live', failures: 0, last_live_at: firstAt, checked_at: firstAt });
      expect(first).toMatchObject({ level: 'bookable', agent_ready: true, listing: { listed: true } });
      const score = first.agentic_score;
      expect(Date.parse(first.next_check_at) - Date.parse(firstAt)).toBe(7 * DAY);

      // First failure: still live on what it showed, dated when it last answered; checked again in a day.
      mcp.broken = true;
      clock.advance(2 * HOUR);
      expect((await t.request('POST', '/check', { body: { url: 'padaria-aurora.test' } })).status).toBe(202);
      await t.directory.checkWorker.drain();
      const once = await doc();
      expect(once.checked_at).not.toBe(firstAt);
      expect(mcpDoor(once)).toMatchObject({ status: 'live', failures: 1, last_live_at: firstAt, checked_at: firstAt });
      expect(once).toMatchObject({ agentic_score: score, level: 'bookable', listing: { listed: true } });
      expect(Date.parse(once.next_check_at) - Date.parse(once.checked_at)).toBe(DAY);
      expect((await t.get('/v1/businesses/padaria-aurora.test')).status).toBe(200);

      // The history is kept across a restart.
      await t.close({ removeData: false });
      t = await startDirectory({ clock, dataDir: t.dataDir, checks: { localWeb: web.address } });

      // Second failure, by the scheduled re-check a day later.
      clock.advance(DAY);
      await t.directory.checkWorker.drain();
      const twice = await doc();
      expect(mcpDoor(twice)).toMatchObject({ status: 'live', failures: 2, last_live_at: firstAt });
      expect(twice.agentic_score).toBe(score);

      // Third failure within seven days: failing, and it counts for nothing (no level, no score, not listed).
      clock.advance(DAY);
      await t.directory.checkWorker.drain();
      const thrice = await doc();
      expect(mcpDoor(thrice)).toMatchObject({ status: 'failing', failures: 3, last_live_at: firstAt, failing_since: thrice.checked_at, checked_at: thrice.checked_at });
      expect(thrice).toMatchObject({ level: 'readable', agent_ready: false, indexable: false, listing: { listed: false } });
      expect(thrice.agentic_score).toBeLessThan(score);
      expect(thrice.answers.find((a: any) => a.capability === 'order').answer).toBe('no');
      expect((await t.get('/v1/businesses/padaria-aurora.test')).status).toBe(404);
      // A failing door is checked weekly again.
      expect(Date.parse(thrice.next_check_at) - Date.parse(thrice.checked_at)).toBe(7 * DAY);
      const page = await fetch(`${t.baseUrl}/b/padaria-aurora.test`);
      expect(page.status).toBe(200);
      const text = await page.text();
      expect(text).toContain('failing since');
      expect(text).toContain('last answered');

      // Failing for thirty days: gone from the result.
      const failingSince = Date.parse(mcpDoor(thrice).failing_since);
      expect(failingSince).toBe(Date.parse(thrice.checked_at));
      for (let i = 0; i < 5; i++) {
        clock.advance(7 * DAY);
        await t.directory.checkWorker.drain();
        const r = await doc();
        const door = mcpDoor(r);
        if (clock.now() - failingSince < 30 * DAY) expect(door).toMatchObject({ status: 'failing', failing_since: thrice.checked_at });
        else expect(door).toBeUndefined();
      }
      expect(clock.now() - failingSince).toBeGreaterThanOrEqual(30 * DAY);

      // It answers again: live, its failures forgotten, listed again.
      mcp.broken = false;
      clock.advance(7 * DAY);
      await t.directory.checkWorker.drain();
      const back = await doc();
      expect(mcpDoor(back)).toMatchObject({ status: 'live', failures: 0, last_live_at: back.checked_at });
      expect(back).toMatchObject({ agentic_score: score, level: 'bookable', listing: { listed: true } });
    } finally {
      mcp.broken = false;
      await t.close();
    }
  }, 120_000);

  it('failures older than seven days no longer count: two failures, then one more eight days later, is live with one failure', async () => {
    const clock = new TestClock();
    const t = await startDirectory({ clock, checks: { localWeb: web.address } });
    const mcpDoor = async () => (await t.get('/b/padaria-aurora.test.json')).body.doors.find((d: any) => d.type === 'mcp');
    try {
      await t.request('POST', '/check', { body: { url: 'padaria-aurora.test' } });
      await t.directory.checkWorker.drain();
      mcp.broken = true;
      clock.advance(2 * HOUR);
      await t.request('POST', '/check', { body: { url: 'padaria-aurora.test' } });
      await t.directory.checkWorker.drain();
      expect(await mcpDoor()).toMatchObject({ status: 'live', failures: 1 });
      clock.advance(DAY);
      await t.directory.checkWorker.drain();
      expect(await mcpDoor()).toMatchObject({ status: 'live', failures: 2 });
      // The next re-check runs eight days later (the directory was down): the two failures are out of the window.
      clock.advance(8 * DAY);
      await t.directory.checkWorker.drain();
      expect(await mcpDoor()).toMatchObject({ status: 'live', failures: 1 });
      // A success forgets every failure.
      mcp.broken = false;
      clock.advance(DAY);
      await t.directory.checkWorker.drain();
      expect(await mcpDoor()).toMatchObject({ status: 'live', failures: 0 });
    } finally {
      mcp.broken = false;
      await t.close();
    }
  }, 60_000);

  it('a declared door that never answered is failing from its first check, with no date it answered', async () => {
    const t = await startDirectory({ checks: { localWeb: web.address } });
    try {
      await t.request('POST', '/check', { body: { url: 'broken-mcp.test' } });
      await t.directory.checkWorker.drain();
      const r = (await t.get('/b/broken-mcp.test.json')).body;
      const door = r.doors.find((d: any) => d.type === 'mcp');
      expect(door).toMatchObject({ status: 'failing', failures: 1, last_live_at: null, failing_since: r.checked_at });
      expect(await (await fetch(`${t.baseUrl}/b/broken-mcp.test`)).text()).toContain('never answered');
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('POST /check/visibility budgets', () => {
  let web: LocalWeb;
  beforeAll(async () => {
    web = await startLocalWeb();
  });
  afterAll(async () => {
    await web?.close();
  });

  it('reads a site\'s owner file at most visibilityPerDomainPerHour times an hour, whoever asks: 429 problem with Retry-After, before the site is read', async () => {
    const clock = new TestClock('2026-11-23T10:15:00Z');
    const t = await startDirectory({ clock, checks: { localWeb: web.address, visibilityPerDomainPerHour: 2, visibilityPerCallerPerHour: 100 } });
    try {
      const reads = () => web.log.filter((l) => l.host === 'hidden-owner.test' && l.path === '/.well-known/svc-check.json').length;
      const before = reads();
      for (let i = 0; i < 2; i++) {
        const ok = await t.request('POST', '/check/visibility', { body: { domain: 'hidden-owner.test' } });
        expect(ok.status).toBe(200);
        expect(ok.body.state).toBe('hidden');
      }
      expect(reads()).toBe(before + 2);
      const refused = await t.request('POST', '/check/visibility', { body: { domain: 'hidden-owner.test' } });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      expect(refused.body).toMatchObject({ status: 429, code: 'rate_limited' });
      // 10:15 → the window ends at 11:00.
      expect(refused.headers.get('retry-after')).toBe(String(45 * 60));
      expect(reads()).toBe(before + 2);
      // Another site has its own budget.
      expect((await t.request('POST', '/check/visibility', { body: { domain: 'cafe-central.test' } })).status).toBe(400);
      // The next hour, the site may be read again.
      clock.advance(HOUR);
      expect((await t.request('POST', '/check/visibility', { body: { domain: 'hidden-owner.test' } })).status).toBe(200);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('a caller may ask visibilityPerCallerPerHour times an hour, whatever the sites', async () => {
    const clock = new TestClock('2026-11-23T10:59:30Z');
    const t = await startDirectory({ clock, checks: { localWeb: web.address, visibilityPerCallerPerHour: 2, visibilityPerDomainPerHour: 100 } });
    try {
      expect((await t.request('POST', '/check/visibility', { body: { domain: 'hidden-owner.test' } })).status).toBe(200);
      expect((await t.request('POST', '/check/visibility', { body: { domain: 'cafe-central.test' } })).status).toBe(400);
      const refused = await t.request('POST', '/check/visibility', { body: { domain: 'padaria-aurora.test' } });
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('rate_limited');
      expect(refused.headers.get('retry-after')).toBe('30');
      // A name that can never be checked is refused before any budget is spent.
      expect((await t.request('POST', '/check/visibility', { body: { domain: 'localhost' } })).status).toBe(404);
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('sites the operator suppressed', () => {
  let web: LocalWeb;
  let t: TestDirectory;
  beforeAll(async () => {
    web = await startLocalWeb();
    t = await startDirectory({ checks: { localWeb: web.address } });
    for (const url of ['padaria-aurora.test', 'pizzaria-napoli.test']) await t.request('POST', '/check', { body: { url } });
    await t.directory.checkWorker.drain();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await web?.close();
  });

  it('nothing of a suppressed site is checked, shown, ranked or counted until the operator lifts it', async () => {
    expect((await t.get('/b/padaria-aurora.test.json')).body.state).toBe('done');
    expect((await t.get('/v1/businesses/padaria-aurora.test')).status).toBe(200);
    await t.directory.search.hour();
    const statsBefore = (await t.get('/v1/stats')).body.directory;
    expect(statsBefore.checked).toBeGreaterThanOrEqual(2);
    const boardBefore = (await t.get('/leaderboard.json')).body;
    expect(boardBefore.named.map((n: any) => n.domain)).toContain('padaria-aurora.test');

    await t.directory.checks.suppress('www.Padaria-Aurora.test', 'a court order');
    t.clock.advance(11 * 60_000);

    const result = await t.get('/b/padaria-aurora.test.json');
    expect(result.status).toBe(404);
    expect(result.headers.get('content-type')).toContain('application/problem+json');
    expect(JSON.stringify(result.body)).not.toContain('court');
    expect((await fetch(`${t.baseUrl}/b/padaria-aurora.test`)).status).toBe(404);
    expect((await t.get('/v1/businesses/padaria-aurora.test')).status).toBe(404);
    const board = (await t.get('/leaderboard.json')).body;
    expect(board.named.map((n: any) => n.domain)).not.toContain('padaria-aurora.test');
    expect(board.total).toBe(boardBefore.total - 1);
    const stats = (await t.get('/v1/stats')).body.directory;
    expect(stats.checked).toBe(statsBefore.checked - 1);
    expect(stats.agent_ready).toBe(statsBefore.agent_ready - 1);

    // Asking for a check, or for the owner's choice, is refused; no re-check is ever queued.
    const asked = await t.request('POST', '/check', { body: { url: 'https://padaria-aurora.test/' } });
    expect(asked.status).toBe(400);
    expect(asked.headers.get('content-type')).toContain('application/problem+json');
    expect((await t.request('POST', '/check/visibility', { body: { domain: 'padaria-aurora.test' } })).status).toBe(404);
    const reads = web.log.filter((l) => l.host === 'padaria-aurora.test').length;
    t.clock.advance(40 * DAY);
    await t.directory.checkWorker.drain();
    expect(web.log.filter((l) => l.host === 'padaria-aurora.test').length).toBe(reads);
    expect((await t.get('/b/padaria-aurora.test.json')).status).toBe(404);

    // Lifted: checked again at once, shown and listed again.
    expect(await t.directory.checks.lift('padaria-aurora.test')).toBe(true);
    expect((await t.get('/b/padaria-aurora.test.json')).body.state).toBe('queued');
    await t.directory.checkWorker.drain();
    expect((await t.get('/b/padaria-aurora.test.json')).body).toMatchObject({ state: 'done', listing: { listed: true } });
    expect((await t.get('/v1/businesses/padaria-aurora.test')).status).toBe(200);
  }, 60_000);
});

describe('the operator\'s command', () => {
  it('the operator\'s suppress-site command suppresses a site of a running directory at once, and --lift lifts it', async () => {
    const web = await startLocalWeb();
    const t = await startDirectory({ checks: { localWeb: web.address } });
    const cli = fileURLToPath(new URL('../src/cli/suppress-site.ts', import.meta.url));
    // On the PostgreSQL run the command opens the directory's database as the service does.
    const databaseUrl = (await testDatabaseUrl('directory', t.dataDir)) ?? '';
    const run = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', cli, ...args], { env: { ...process.env, DATA_DIR: t.dataDir, DIRECTORY_DATABASE_URL: databaseUrl, DIRECTORY_PUBLIC_URL: t.publicUrl, DIRECTORY_CHECK_LOCAL_WEB: web.address }, timeout: 60_000 });
    try {
      await t.request('POST', '/check', { body: { url: 'padaria-aurora.test' } });
      await t.directory.checkWorker.drain();
      expect((await t.get('/b/padaria-aurora.test.json')).status).toBe(200);
      expect((await run('www.padaria-aurora.test', 'a', 'takedown')).stdout).toContain('padaria-aurora.test: suppressed');
      expect((await t.get('/b/padaria-aurora.test.json')).status).toBe(404);
      expect((await t.get('/v1/businesses/padaria-aurora.test')).status).toBe(404);
      await expect(run('padaria-aurora.test')).rejects.toMatchObject({ code: 2 });
      expect((await run('--lift', 'padaria-aurora.test')).stdout).toContain('lifted');
      expect((await t.get('/b/padaria-aurora.test.json')).body.state).toBe('queued');
    } finally {
      await t.close();
      await web.close();
    }
  }, 120_000);
});

describe('payments and attributes a found business publishes', () => {
  let web: LocalWeb;
  let t: TestDirectory;
  beforeAll(async () => {
    web = await startLocalWeb();
    t = await startDirectory({ checks: { localWeb: web.address } });
    for (const url of ['cafe-central.test', 'loja-verde.test', 'boutique-nord.test']) await t.request('POST', '/check', { body: { url } });
    await t.directory.checkWorker.drain();
    await t.directory.search.hour();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await web?.close();
  });

  it('schema.org paymentAccepted and amenityFeature become our payment tokens and seen attributes, each a fact with its page and date; unknown words are dropped', async () => {
    const res = await t.get('/v1/businesses/cafe-central.test');
    expect(res.status).toBe(200);
    const l = res.body;
    expect(l.source).toBe('found');
    expect(l.accepts.pay).toEqual(['cash', 'credit_card', 'apple_pay', 'bizum', 'meal_voucher']);
    // Wi-Fi, takeaway, pets (seen keys that apply to a café); "Terraza" is no seen key: dropped; parking stated as absent.
    expect(l.attributes).toEqual({ wifi: { v: true, src: 'seen' }, takeaway: { v: true, src: 'seen' }, parking: { v: false, src: 'seen' }, pets_welcome: { v: true, src: 'seen' } });
    const checkedAt = (await t.get('/b/cafe-central.test.json')).body.checked_at;
    const pay = l.facts.find((f: any) => f.field === 'accepts.pay');
    expect(pay).toEqual({ field: 'accepts.pay', v: l.accepts.pay, src: 'seen', at: checkedAt, url: 'http://cafe-central.test/', via: 'schema.org JSON-LD paymentAccepted' });
    const wifi = l.facts.find((f: any) => f.field === 'attributes.wifi');
    expect(wifi).toMatchObject({ v: true, src: 'seen', at: checkedAt, url: 'http://cafe-central.test/', via: 'schema.org JSON-LD' });
    expect(JSON.stringify(l)).not.toContain('Ticket Restaurant');
    expect(JSON.stringify(l)).not.toContain('Terraza');
    // The search filters read them.
    const byPayment = (await t.get('/v1/businesses?accepts=bizum&source=found')).body.businesses.map((b: any) => b.domain);
    expect(byPayment).toEqual(['cafe-central.test']);
    const byAttribute = (await t.get('/v1/businesses?attributes=wifi&source=found')).body.businesses.map((b: any) => b.domain);
    expect(byAttribute).toEqual(['cafe-central.test']);
    expect((await t.get('/v1/businesses?attributes=parking&source=found')).body.businesses).toEqual([]);
  });

  it('a live door that takes payment gives its agent payment (UCP, ACP), with the door as the fact\'s page', async () => {
    for (const domain of ['loja-verde.test', 'boutique-nord.test']) {
      const r = (await t.get(`/b/${domain}.json`)).body;
      const paying = r.doors.filter((d: any) => d.status === 'live' && d.kinds.includes('pay'));
      const l = (await t.get(`/v1/businesses/${domain}`)).body;
      if (paying.length === 0) {
        expect(l.accepts?.pay ?? []).toEqual([]);
        continue;
      }
      expect(l.accepts.pay).toEqual(expect.arrayContaining(paying.map((d: any) => d.type)));
      expect(l.facts.find((f: any) => f.field === 'accepts.pay')).toMatchObject({ src: 'seen', url: paying[0].url, via: 'a door for agents that takes payment' });
    }
    const all = await Promise.all(['loja-verde.test', 'boutique-nord.test'].map(async (d) => (await t.get(`/b/${d}.json`)).body.doors.some((x: any) => x.kinds.includes('pay'))));
    expect(all.some(Boolean)).toBe(true);
  });
});
