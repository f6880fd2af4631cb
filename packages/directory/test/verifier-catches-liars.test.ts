/**
 * The verifier against a network that cheats in each way that matters (issue 39): it drops a
 * receipt, reorders a page, moves a business up a tier (by its own code, from a forged score, and by
 * what it serves), rewrites its log's history, and shows two different heads to two clients. The
 * liar holds the network's signing key, so every lie is signed as the truth is; each is caught, and
 * the report names the first difference. A drop the liar keeps consistent with its own log is
 * caught only by whoever holds the receipt (the inbox, here its receipts given to the verifier), as
 * docs/verifiable-order.md says.
 */
import { parseEntry, receiptClaimsOf, verifyNetwork, type EvidenceEntry } from '@svc/verify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRows } from '../../../test-support/test-database.js';
import { HOUR } from './support/fixtures.js';
import { evidenceScene, type EvidenceScene } from './support/evidence-scene.js';
import { LyingNetwork } from './support/lying-network.js';
import { closeSignedInboxes } from './support/signed-inbox.js';

let s: EvidenceScene;
let liar: LyingNetwork;
/** The head an inbox saw before any lie (it keeps the last head it checked). */
let honestHead: string;
/** The weak inbox's broken outcome: what a liar paid by that business would like to lose. */
let broken: { jws: string; id: string };

const verify = (fetchImpl: typeof fetch, extra: Partial<Parameters<typeof verifyNetwork>[0]> = {}) =>
  verifyNetwork({ network: s.t.publicUrl, hour: s.hour, fetch: fetchImpl, now: () => s.clock.now(), ...extra });

const isBroken = (e: EvidenceEntry) => (e.kind === 'receipt' && receiptClaimsOf(e.jws).nonce === broken.id) || (e.kind === 'ack' && e.receipt_id === broken.id);

beforeAll(async () => {
  s = await evidenceScene();
  await s.nextNight();
  liar = new LyingNetwork(s.t);
  const weakReceipts = s.published.get(s.weak.domain) ?? [];
  const jws = weakReceipts.find((r) => receiptClaimsOf(r).out === 'order.not_fulfilled') as string;
  broken = { jws, id: String(receiptClaimsOf(jws).nonce) };
  const honest = await verify(s.fetch);
  expect(honest.difference).toBeNull();
  honestHead = honest.checkpointNote as string;
}, 180_000);
afterAll(async () => {
  await s.t.close();
  await closeSignedInboxes();
});

describe('a network that lies is caught', () => {
  it('tells nothing while it tells the truth (the liar\'s own relay changes nothing)', async () => {
    liar.lies = {};
    expect((await verify(liar.fetch, { pages: ['/v1/businesses?source=member'], checkpoints: [honestHead] })).difference).toBeNull();
  });

  it('drops a receipt: whoever holds it finds it missing from the log, and the head it kept no longer fits', async () => {
    // Dropped from the log and from the reputation: a lie consistent with the log it serves.
    liar.lies = { dropEntries: isBroken, leavesFromServedLog: true };
    const blind = await verify(liar.fetch);
    // Nothing in the log itself shows it; the inbox's receipts do.
    expect(blind.difference).toBeNull();
    expect(blind.reputations.find((r) => r.domain === s.weak.domain)?.tier).toBe('building');
    const held = await verify(liar.fetch, { receipts: s.published.get(s.weak.domain) ?? [] });
    expect(held.difference).toEqual({ check: 'receipt', detail: expect.stringContaining(broken.id) });
    const kept = await verify(liar.fetch, { checkpoints: [honestHead] });
    expect(kept.difference?.check).toBe('fork');
  });

  it('drops a receipt from the reputation while it stays in the log: the recomputed reputation differs', async () => {
    // Weak placed as if its broken promise did not count: building with the score of four kept.
    liar.lies = { editLeaves: (leaves) => leaves.map((l) => (l.domain === s.weak.domain ? { ...l, tier: 'building', score: 5158 } : l)) };
    const report = await verify(liar.fetch);
    expect(report.difference).toEqual({ check: 'reputation', detail: `${s.weak.domain} is placed as building with score 5158; its receipts in the log give new with score 2868` });
  });

  it('reorders a page: the listings are not at their places in the hour\'s signed order', async () => {
    liar.lies = { editPage: (businesses) => [businesses[1], businesses[0], ...businesses.slice(2)].map((b, i) => ({ ...b, rank_pos: i + 1 })) };
    const report = await verify(liar.fetch, { pages: ['/v1/businesses?source=member'] });
    expect(report.difference?.check).toBe('page');
    expect(report.difference?.detail).toMatch(/place 1 shows .* the hour's order has .* there/);
  });

  it('reorders the hour\'s order itself: two places out of the rules\' sort', async () => {
    liar.lies = { keepOrder: true, editLeaves: (leaves) => [leaves[1], leaves[0], ...leaves.slice(2)].filter((l) => l !== undefined) };
    const report = await verify(liar.fetch);
    expect(report.difference?.check).toBe('order');
    expect(report.difference?.detail).toMatch(/should come before place 1/);
  });

  it('moves a business up a tier in what it serves: the log gives another tier', async () => {
    liar.lies = { editLeaves: (leaves) => leaves.map((l) => (l.domain === s.quiet.domain ? { ...l, tier: 'trusted', score: 9000 } : l)) };
    const report = await verify(liar.fetch);
    expect(report.difference).toEqual({ check: 'reputation', detail: `${s.quiet.domain} is placed as trusted with score 9000; its receipts in the log give new with score 0` });
  });

  it('rewrites its log\'s history under a statement it signed before: the statement\'s prefix no longer hashes to its root', async () => {
    // The log grew since the statement (a receipt of the quiet inbox, its outcome and acknowledgement), then lost an old entry.
    await s.closePromise(s.quiet, 'later', 'booking.completed');
    // The network signs its head every five minutes while the log grows.
    await s.t.directory.order.signHead();
    liar.lies = { dropEntries: isBroken, honestStatement: true };
    const report = await verify(liar.fetch);
    expect(report.difference).toEqual({ check: 'log', detail: expect.stringContaining('history was rewritten') });
  });

  it('serves two different heads to two clients: either one, shown the other\'s, sees the fork', async () => {
    liar.lies = { dropEntries: isBroken };
    const otherClientsHead = await liar.checkpoint();
    liar.lies = {};
    const report = await verify(liar.fetch, { checkpoints: [otherClientsHead] });
    expect(report.difference).toEqual({ check: 'fork', detail: expect.stringContaining('two different') });
    // The fork is in the heads themselves: both carry the network's valid signature.
    expect(otherClientsHead.split('\n')[0]).toBe(honestHead.split('\n')[0]);
  });

  it('moves a business up a tier in its own database: its code builds and signs the lie, the verifier recomputes the truth', async () => {
    liar.lies = {};
    await rawRows('directory', s.t.dataDir, "UPDATE reputation_scores SET tier = 'trusted', score = 0.91, score_int = 9100, ranked = 1 WHERE domain = ?", [s.weak.domain]);
    s.clock.advance(HOUR);
    s.hour = Math.floor(s.clock.now() / HOUR) * HOUR;
    await s.t.directory.search.hour();
    const report = await verify(s.fetch);
    expect(report.difference).toEqual({ check: 'reputation', detail: `${s.weak.domain} is placed as trusted with score 9100; its receipts in the log give new with score 2868` });
  });
});

describe('what a lie cannot hide', () => {
  it('every entry served is the one the honest log holds at its place, or the roots differ', async () => {
    const entries = (await (await s.fetch(`${s.t.publicUrl}/v1/log/entries/0`)).json()) as { entry: string };
    expect(parseEntry(entries.entry).kind).toBe('night');
  });
});
