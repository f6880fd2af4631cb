/**
 * A network that lies, for the verifier's tests: it sits in front of an honest directory and holds
 * the network's own signing key (a network that cheats has it), so whatever it serves is signed as
 * the real one signs. It can serve a log without some entries (re-signing its head and the hour's
 * statement over what it serves), other leaves for the hour's order, search pages in another order,
 * and another head to a second client. Everything it computes uses @svc/verify's functions, as a
 * careful liar would.
 */
import {
  TILE_WIDTH,
  checkpointText,
  compareLeaves,
  consistencyProof,
  encodeDataTile,
  evidencePieces,
  leafHash,
  orderLeafText,
  parseEntry,
  parseOrderLeaf,
  parseStatement,
  parseTilePath,
  receiptClaimsOf,
  scoreBusiness,
  statementText,
  treeRoot,
  arraySource,
  type EvidenceEntry,
  type OrderLeaf,
  type ScoredReceipt,
} from '@svc/verify';
import { networkKeyFromSeed, type NetworkKey } from '../../src/domain/evidence/network-key.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestDirectory } from './harness.js';

export interface Lies {
  /** Entries left out of the log it serves (by index in the honest log). */
  dropEntries?: (entry: EvidenceEntry, index: number) => boolean;
  /** Its leaves recomputed from the entries it serves (a liar consistent with its own log). */
  leavesFromServedLog?: boolean;
  /** A change to the leaves (after any recomputation); the order is sorted again unless `keepOrder`. */
  editLeaves?: (leaves: OrderLeaf[]) => OrderLeaf[];
  keepOrder?: boolean;
  /** A change to each search page's listings. */
  editPage?: (businesses: any[]) => any[];
  /** Keep serving the statement as the honest network signed it (a rewritten log under an old statement). */
  honestStatement?: boolean;
}

export class LyingNetwork {
  readonly #t: TestDirectory;
  readonly #key: NetworkKey;
  lies: Lies = {};

  constructor(t: TestDirectory) {
    this.#t = t;
    const seed = Buffer.from(readFileSync(join(t.dataDir, 'network-log.key'), 'utf8').trim(), 'base64');
    this.#key = networkKeyFromSeed(seed, new URL(t.publicUrl).host);
  }

  async #honest(path: string): Promise<Response> {
    return fetch(`${this.#t.baseUrl}${path}`);
  }

  async #honestJson<T = any>(path: string): Promise<T> {
    return (await (await this.#honest(path)).json()) as T;
  }

  /** Every entry of the honest log, then those it serves. */
  async #entries(): Promise<{ served: Buffer[]; dropped: number[] }> {
    const head = (await (await this.#honest('/v1/log/checkpoint')).text()).split('\n');
    const size = Number(head[1]);
    const all: Buffer[] = [];
    for (let i = 0; i < size; i++) all.push(Buffer.from((await this.#honestJson(`/v1/log/entries/${i}`)).entry, 'utf8'));
    const dropped: number[] = [];
    const served = all.filter((bytes, i) => {
      const drop = this.lies.dropEntries?.(parseEntry(bytes), i) ?? false;
      if (drop) dropped.push(i);
      return !drop;
    });
    return { served, dropped };
  }

  #root(entries: readonly Buffer[], size: number): Buffer {
    return treeRoot(arraySource(entries.map((e) => leafHash(e))), size);
  }

  /** The signed head of the log it serves. */
  async checkpoint(): Promise<string> {
    const { served } = await this.#entries();
    return this.#key.sign(checkpointText({ origin: this.#key.name, size: served.length, root: this.#root(served, served.length), extensions: [] }));
  }

  async #statementAndLeaves(hour: string): Promise<{ note: string; leaves: string[] }> {
    const honest = await this.#honestJson(`/v1/orders/${hour}`);
    const honestLeaves: string[] = (await this.#honestJson(`/v1/orders/${hour}/leaves?start=0&count=10000`)).leaves;
    if (this.lies.honestStatement) return { note: honest.note, leaves: honestLeaves };
    const statement = parseStatement(honest.note.split('\n\n')[0] + '\n');
    const { served, dropped } = await this.#entries();
    const logSize = statement.logSize - dropped.filter((i) => i < statement.logSize).length;
    let leaves = honestLeaves.map(parseOrderLeaf);
    if (this.lies.leavesFromServedLog) leaves = this.#rescored(leaves, served.slice(0, logSize).map((b) => parseEntry(b)), statement.night as number);
    if (this.lies.editLeaves) leaves = this.lies.editLeaves(leaves);
    if (!this.lies.keepOrder) leaves = [...leaves].sort((a, b) => compareLeaves(statement.rules, statement.shuffleDay, a, b));
    const texts = leaves.map((leaf, i) => orderLeafText({ ...leaf, pos: i + 1 }));
    const orderRoot = treeRoot(arraySource(texts.map((t) => leafHash(t))), texts.length);
    const shift = (size: number) => size - dropped.filter((i) => i < size).length;
    const checks = statement.checks ? { from: shift(statement.checks.from), to: shift(statement.checks.to) } : null;
    const note = this.#key.sign(statementText({ ...statement, logSize, logRoot: this.#root(served, logSize), checks, orderSize: texts.length, orderRoot }));
    return { note, leaves: texts };
  }

  /** Each member's tier and score as the served entries give them (what a liar consistent with its log shows). */
  #rescored(leaves: OrderLeaf[], prefix: EvidenceEntry[], night: number): OrderLeaf[] {
    const members = new Map<string, { origin: string; at: number }>();
    const receipts = new Map<string, ScoredReceipt[]>();
    const byKey = new Map<string, ScoredReceipt>();
    for (const e of prefix) {
      if (e.kind === 'member') members.set(e.domain, { origin: e.origin, at: e.at });
      if (e.kind === 'receipt') {
        const c = receiptClaimsOf(e.jws) as Record<string, any>;
        const r: ScoredReceipt = { receiptId: c.nonce, knd: c.knd, out: c.out ?? null, ref: c.ref ?? null, sub: c.sub, itm: c.itm, iat: c.iat, due: c.due, paid: c.pay === 1 || c.knd === 'paid', aut: c.aut === 1, counted: true, arrivedAt: e.at, acknowledged: false };
        byKey.set(`${c.iss} ${c.nonce}`, r);
        receipts.set(c.iss, [...(receipts.get(c.iss) ?? []), r]);
      }
      if (e.kind === 'ack') {
        const r = byKey.get(`${e.iss} ${e.receipt_id}`);
        if (r) r.acknowledged = true;
      }
    }
    return leaves.map((leaf) => {
      const m = members.get(leaf.domain);
      if (!leaf.member || !m) return leaf;
      const score = scoreBusiness(evidencePieces(receipts.get(m.origin) ?? [], night), Math.floor(night / 1000), Math.floor(m.at / 1000));
      return { ...leaf, tier: score.tier, score: score.scoreInt };
    });
  }

  /** A fetch the verifier calls the network with: the lies served, everything else passed to the honest network. */
  get fetch(): typeof fetch {
    return (async (input: string | URL | Request) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      const path = url.pathname;
      if (path === '/v1/log/checkpoint') return new Response(await this.checkpoint(), { headers: { 'content-type': 'text/plain' } });
      if (path.startsWith('/v1/log/tile/entries/')) {
        const tile = parseTilePath(path.slice('/v1/log/tile/'.length));
        const { served } = await this.#entries();
        if (!tile) return new Response('{}', { status: 400 });
        return new Response(encodeDataTile(served.slice(tile.index * TILE_WIDTH, tile.index * TILE_WIDTH + tile.width)));
      }
      if (path === '/v1/log/proof/consistency') {
        const { served } = await this.#entries();
        const proof = consistencyProof(arraySource(served.map((e) => leafHash(e))), Number(url.searchParams.get('from')), Number(url.searchParams.get('to')));
        return Response.json({ proof: proof.map((h) => h.toString('base64')) });
      }
      const order = /^\/v1\/orders\/([^/]+)(\/leaves)?$/.exec(path);
      if (order) {
        const { note, leaves } = await this.#statementAndLeaves(order[1] as string);
        if (order[2]) {
          const start = Number(url.searchParams.get('start') ?? 0);
          return Response.json({ leaves: leaves.slice(start, start + Number(url.searchParams.get('count') ?? 1000)) });
        }
        return Response.json({ note });
      }
      if (path === '/v1/businesses' && this.lies.editPage) {
        const page = await this.#honestJson(`${path}${url.search}`);
        return Response.json({ ...page, businesses: this.lies.editPage(page.businesses) });
      }
      return this.#honest(`${path}${url.search}`);
    }) as typeof fetch;
  }
}
