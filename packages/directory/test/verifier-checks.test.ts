/**
 * What the hour's order reads of checks, checked by the verifier (issue 39): a found listing's level
 * and reach come from its check, logged in the check's own transaction, so the verifier recomputes
 * them from the log. A network that moves a found listing's level or reach in what it serves, drops
 * it from the order, or (in its own database) ranks it by a check result other than the logged one,
 * or keeps it after its logged check withdrew it, is caught and the report names the first difference.
 */
import { parseEntry, siteOf, verifyNetwork } from '@svc/verify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRows } from '../../../test-support/test-database.js';
import { startLocalWeb, type LocalWeb } from '../src/demo/local-web/local-web-server.js';
import { SAMPLE_SITES, type SampleSite } from '../src/demo/local-web/sample-sites.js';
import { fetchVia } from './support/evidence-scene.js';
import { startDirectory, TestClock, type TestDirectory } from './support/harness.js';
import { LyingNetwork } from './support/lying-network.js';

const HOUR = 3_600_000;
const PADARIA = 'padaria-aurora.test';

let web: LocalWeb;
let mcp: { broken?: boolean };
let t: TestDirectory;
let clock: TestClock;
let liar: LyingNetwork;
let hour = 0;

const verify = (fetchImpl: typeof fetch) => verifyNetwork({ network: t.publicUrl, hour, fetch: fetchImpl, now: () => clock.now() });

/** Moves to the next hour and has its order (and statement) made. */
async function nextHour(): Promise<void> {
  clock.advance(HOUR);
  hour = Math.floor(clock.now() / HOUR) * HOUR;
  await t.directory.search.hour();
}

async function check(domain: string): Promise<void> {
  const asked = await t.request('POST', '/check', { body: { url: domain } });
  expect([200, 202]).toContain(asked.status);
  await t.directory.checkWorker.drain();
}

async function logEntries(): Promise<ReturnType<typeof parseEntry>[]> {
  // Every entry written so far (the signed head may be a few minutes behind).
  const out = [];
  for (let i = 0; ; i++) {
    const r = await t.get(`/v1/log/entries/${i}`);
    if (r.status === 404) return out;
    out.push(parseEntry(r.body.entry));
  }
}

beforeAll(async () => {
  // padaria-aurora's MCP server (its only door) made breakable.
  const padaria = SAMPLE_SITES.find((s) => s.host === PADARIA) as SampleSite;
  const door = { ...padaria.mcp![0]! };
  mcp = door;
  web = await startLocalWeb({ sites: [...SAMPLE_SITES.filter((s) => s !== padaria), { ...padaria, mcp: [door] }] });
  clock = new TestClock();
  t = await startDirectory({ clock, checks: { localWeb: web.address } });
  await check(PADARIA);
  await check('salao-lume.test');
  await nextHour();
  liar = new LyingNetwork(t);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await web?.close();
});

describe('check results in the evidence log', () => {
  it('logs the found listing a check writes: its id and doors, the site by a hash only; the statement names the sizes its order read', async () => {
    const listing = (await t.get(`/v1/businesses/${PADARIA}`)).body;
    const entries = await logEntries();
    const checks = entries.filter((e) => e.kind === 'check');
    const mine = checks.find((e) => e.kind === 'check' && e.site === siteOf(PADARIA));
    expect(mine).toMatchObject({ listing: listing.id, doors: [{ type: 'mcp', level: 'bookable', status: 'live' }] });
    expect(JSON.stringify(checks)).not.toContain('padaria');
    const statement = (await t.get(`/v1/orders/${new Date(hour).toISOString().slice(0, 13)}`)).body;
    expect(statement.checks.from).toBeGreaterThan(entries.indexOf(mine as never));
    expect(statement.checks.to).toBeGreaterThanOrEqual(statement.checks.from);
    expect(statement.note).toContain(`\nchecks ${statement.checks.from} ${statement.checks.to}\n`);
  });

  it('the verifier recomputes each found listing\'s level and reach from its logged check, and finds nothing wrong in the truth', async () => {
    const report = await verify(fetchVia(t));
    expect(report.difference).toBeNull();
    expect(report.counts.checks).toBeGreaterThanOrEqual(2);
    expect(report.counts.checked_places).toBeGreaterThanOrEqual(2);
    liar.lies = {};
    expect((await verify(liar.fetch)).difference).toBeNull();
  });
});

describe('a network that lies about checks is caught', () => {
  it('moves a found listing up a level in what it serves', async () => {
    liar.lies = { editLeaves: (leaves) => leaves.map((l) => (l.domain === PADARIA ? { ...l, level: 4 } : l)) };
    const report = await verify(liar.fetch);
    expect(report.difference).toEqual({ check: 'check', detail: expect.stringMatching(new RegExp(`^${PADARIA} is placed at level payable \\(4\\), reach 2; its check in the log \\(entry \\d+\\) gives level bookable \\(3\\), reach 2$`)) });
  });

  it('says a found listing cannot be reached through its doors (reach 3) when its check found a live agent door', async () => {
    liar.lies = { editLeaves: (leaves) => leaves.map((l) => (l.domain === PADARIA ? { ...l, reach: 3 } : l)) };
    const report = await verify(liar.fetch);
    expect(report.difference?.check).toBe('check');
    expect(report.difference?.detail).toMatch(/reach 3; its check in the log \(entry \d+\) gives level bookable \(3\), reach 2/);
  });

  it('places a found listing as a member (members sort first on a tie) where the log has no such member', async () => {
    liar.lies = { editLeaves: (leaves) => leaves.map((l) => (l.domain === PADARIA ? { ...l, member: true } : l)) };
    const report = await verify(liar.fetch);
    expect(report.difference).toEqual({ check: 'check', detail: `${PADARIA} is placed as a member; the log has no member of that domain, and its check lists it as found` });
  });

  it('leaves a listing its check listed out of the order', async () => {
    const id = (await t.get(`/v1/businesses/${PADARIA}`)).body.id;
    liar.lies = { editLeaves: (leaves) => leaves.filter((l) => l.domain !== PADARIA) };
    const report = await verify(liar.fetch);
    expect(report.difference).toEqual({ check: 'check', detail: expect.stringMatching(new RegExp(`lists ${id}, which the hour's order leaves out$`)) });
  });

  it('ranks by another check result in its own database: its code signs the lie, the log tells the truth', async () => {
    liar.lies = {};
    await rawRows('directory', t.dataDir, 'UPDATE listings SET level = 4 WHERE domain = ?', [PADARIA]);
    await nextHour();
    const report = await verify(fetchVia(t));
    expect(report.difference?.check).toBe('check');
    expect(report.difference?.detail).toMatch(new RegExp(`^${PADARIA} is placed at level payable \\(4\\).*gives level bookable \\(3\\)`));
    await rawRows('directory', t.dataDir, 'UPDATE listings SET level = 3 WHERE domain = ?', [PADARIA]);
  });

  it('keeps a listing its logged check withdrew (its only door failing three times in a week)', async () => {
    mcp.broken = true;
    clock.advance(2 * HOUR);
    await check(PADARIA);
    // Live on its last answer after one failure: checked again a day later, twice.
    for (let i = 0; i < 2; i++) {
      clock.advance(24 * HOUR);
      await t.directory.checkWorker.drain();
    }
    expect((await t.get(`/b/${PADARIA}.json`)).body).toMatchObject({ agent_ready: false, listing: { listed: false } });
    const withdrawal = (await logEntries()).filter((e) => e.kind === 'check' && e.site === siteOf(PADARIA)).pop();
    expect(withdrawal).toMatchObject({ listing: null, doors: [] });
    await nextHour();
    expect((await verify(fetchVia(t))).difference).toBeNull();
    // The network puts it back in its own database, and its next order ranks it.
    await rawRows('directory', t.dataDir, 'UPDATE listings SET listed = 1, delisted_at = NULL WHERE domain = ?', [PADARIA]);
    await nextHour();
    const report = await verify(fetchVia(t));
    expect(report.difference).toEqual({ check: 'check', detail: expect.stringMatching(new RegExp(`^${PADARIA} is at place \\d+; its check in the log \\(entry \\d+\\) withdrew it before the order read its listings$`)) });
  });
});
