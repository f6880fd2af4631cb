/**
 * The verifier (docs/verifiable-order.md "What the verifier checks"): fetches a network's signed
 * statement of an hour, its log's signed head, every entry of the log and every leaf of the hour's
 * order, recomputes every reputation from the entries with the published arithmetic, each found
 * listing's level and reach from its site's check entries, and the order's sort from the published rules, checks the pages and receipts it is given, and stops at the first
 * difference, saying what the network claims and what the evidence gives.
 */
import { createHash } from 'node:crypto';
import { parseCheckpoint, type Checkpoint } from './checkpoint.js';
import { DOOR_LEVELS, doorPlacement, parseEntry, receiptClaimsOf, siteOf, type EvidenceEntry } from './evidence.js';
import { arraySource, leafHash, sameHash, treeRoot, verifyConsistency, type HashSource } from './merkle.js';
import { noteVerifier, openNote, type NoteVerifier } from './note.js';
import { compareLeaves, knowsRules, leafFactsProblem, parseOrderLeaf, shuffleKey, type OrderLeaf } from './order.js';
import { evidencePieces, scoreBusiness, type ReputationResult, type ScoredReceipt } from './reputation.js';
import { parseStatement, type HourStatement } from './statement.js';
import { decodeDataTile, tilePath, TILE_WIDTH } from './tiles.js';

export interface VerifyOptions {
  /** The network's base URL. */
  network: string;
  /** The hour: a time within it (ms), or its start as `YYYY-MM-DDTHH` or an ISO instant. Default: the current hour. */
  hour?: number | string;
  /** Search pages to check (a path such as `/v1/businesses?q=hair`, or a full URL on the network). */
  pages?: readonly string[];
  /** Signed heads of the log seen elsewhere (by an inbox, a witness, an earlier run): each must be consistent with this one. */
  checkpoints?: readonly string[];
  /** Receipts (compact JWS) that must be in the log. */
  receipts?: readonly string[];
  /** The network's verifier key (`name+keyid+key`); fetched from the network when absent (trust on first use). */
  key?: string;
  fetch?: typeof fetch;
  now?: () => number;
  /** Progress lines. */
  progress?: (line: string) => void;
}

export interface Difference {
  /** Which check found it. */
  check: 'signature' | 'log' | 'fork' | 'reputation' | 'check' | 'order' | 'page' | 'receipt' | 'statement';
  detail: string;
}

export interface MemberReputation extends ReputationResult {
  domain: string;
  origin: string;
}

export interface VerifyReport {
  ok: boolean;
  network: string;
  statement: HourStatement | null;
  checkpoint: Checkpoint | null;
  /** The signed head itself, to keep and compare with later (--state). */
  checkpointNote: string | null;
  /** Every member's reputation as the log gives it at the statement's night. */
  reputations: MemberReputation[];
  counts: {
    entries: number;
    receipts: number;
    acknowledgements: number;
    members: number;
    /** Check entries in the log. */
    checks: number;
    /** Places whose level and reach were recomputed from a logged check. */
    checked_places: number;
    leaves: number;
    pages: number;
    listings: number;
    checkpoints: number;
    receipts_found: number;
  };
  difference: Difference | null;
}

class Found extends Error {
  constructor(readonly difference: Difference) {
    super(difference.detail);
  }
}

const differ = (check: Difference['check'], detail: string): never => {
  throw new Found({ check, detail });
};

const HOUR_MS = 3_600_000;

/** The start of the hour named. */
export function hourStart(hour: number | string | undefined, nowMs: number): number {
  if (hour === undefined) return Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  if (typeof hour === 'number') return Math.floor(hour / HOUR_MS) * HOUR_MS;
  const text = /^\d{4}-\d{2}-\d{2}T\d{2}$/.test(hour) ? `${hour}:00:00Z` : hour;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new Error(`not an hour: ${hour} (write YYYY-MM-DDTHH, in UTC)`);
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

export const hourName = (ms: number) => new Date(ms).toISOString().slice(0, 13);

export async function verifyNetwork(options: VerifyOptions): Promise<VerifyReport> {
  const base = options.network.replace(/\/+$/, '');
  const get = options.fetch ?? fetch;
  const say = options.progress ?? (() => {});
  const hour = hourStart(options.hour, (options.now ?? Date.now)());
  const report: VerifyReport = {
    ok: false,
    network: base,
    statement: null,
    checkpoint: null,
    checkpointNote: null,
    reputations: [],
    counts: { entries: 0, receipts: 0, acknowledgements: 0, members: 0, checks: 0, checked_places: 0, leaves: 0, pages: 0, listings: 0, checkpoints: 0, receipts_found: 0 },
    difference: null,
  };

  const fetchOk = async (path: string): Promise<Response> => {
    const url = path.startsWith('http') ? path : `${base}${path}`;
    const answer = await get(url);
    if (!answer.ok) {
      let detail = '';
      try {
        detail = ((await answer.json()) as { detail?: string }).detail ?? '';
      } catch {
        // not a problem document
      }
      throw new Error(`${url} answered ${answer.status}${detail ? `: ${detail}` : ''}`);
    }
    return answer;
  };
  const json = async <T>(path: string): Promise<T> => (await (await fetchOk(path)).json()) as T;

  try {
    // 1. The network's key: pinned, or published by the network.
    const published = await json<{ vkey: string }>('/v1/log/key');
    if (options.key && options.key !== published.vkey) differ('signature', `the network publishes the key ${published.vkey}, not the one given (${options.key})`);
    const verifier: NoteVerifier = noteVerifier(options.key ?? published.vkey);
    const open = (note: string, what: string) => {
      try {
        return openNote(note, [verifier]).text;
      } catch (error) {
        return differ('signature', `${what} is not signed by the network's key: ${(error as Error).message}`);
      }
    };

    // 2. The hour's statement.
    const answer = await json<{ note: string }>(`/v1/orders/${hourName(hour)}`);
    const statement = parseStatement(open(answer.note, `the statement of ${hourName(hour)}`));
    report.statement = statement;
    if (statement.hour !== hour) differ('statement', `asked for the hour ${hourName(hour)}, the statement is of ${hourName(statement.hour)}`);
    if (!knowsRules(statement.rules)) throw new Error(`rules version ${statement.rules} is not known to this verifier; update it`);
    say(`statement: rules ${statement.rules}, ${statement.orderSize} listed, reputation of ${statement.night === null ? 'no night' : new Date(statement.night).toISOString()} from the log's first ${statement.logSize} entries`);

    // 3. The log's head.
    const headNote = await (await fetchOk('/v1/log/checkpoint')).text();
    const head = parseCheckpoint(open(headNote, 'the log\'s checkpoint'));
    report.checkpoint = head;
    report.checkpointNote = headNote;
    if (head.size < statement.logSize) differ('log', `the statement names the log's first ${statement.logSize} entries, the log's head has ${head.size}`);

    // 4. Every entry, from the data tiles; the head's root and the statement's prefix root recomputed.
    const entryBytes = await fetchEntries(fetchOk, head.size, say);
    report.counts.entries = entryBytes.length;
    const leafHashes = entryBytes.map((bytes) => leafHash(bytes));
    const log = cachedSource(arraySource(leafHashes));
    if (!sameHash(treeRoot(log, head.size), head.root)) differ('log', `the log's ${head.size} entries do not hash to the root its signed head gives`);
    if (!sameHash(treeRoot(log, statement.logSize), statement.logRoot)) {
      differ('log', `the log's first ${statement.logSize} entries do not hash to the root the statement of ${hourName(hour)} gives: the log's history was rewritten since`);
    }

    // 5. Heads seen elsewhere must be heads of this same log.
    for (const other of options.checkpoints ?? []) {
      const seen = parseCheckpoint(open(other, 'a checkpoint given'));
      report.counts.checkpoints += 1;
      if (seen.origin !== head.origin) differ('fork', `a checkpoint given is of another log (${seen.origin})`);
      if (seen.size <= head.size) {
        if (!sameHash(treeRoot(log, seen.size), seen.root)) {
          differ('fork', `two different heads signed for the log's first ${seen.size} entries: the network showed another log to someone else, or rewrote its history`);
        }
      } else {
        const proof = await json<{ proof: string[] }>(`/v1/log/proof/consistency?from=${head.size}&to=${seen.size}`).catch(() => ({ proof: [] as string[] }));
        if (!verifyConsistency(head.size, seen.size, proof.proof.map((h) => Buffer.from(h, 'base64')), head.root, seen.root)) {
          differ('fork', `the head of ${seen.size} entries given is not an extension of the head of ${head.size} served now: two different logs`);
        }
      }
    }

    // 6. The entries: their form and order in time, the night's prefix, and the reputation they give.
    const entries = entryBytes.map((bytes, i) => {
      try {
        return parseEntry(bytes);
      } catch (error) {
        return differ('log', `entry ${i}: ${(error as Error).message}`);
      }
    });
    for (let i = 1; i < entries.length; i++) {
      if ((entries[i] as EvidenceEntry).at < (entries[i - 1] as EvidenceEntry).at) differ('log', `entry ${i} is dated before entry ${i - 1}: the log is not in the order it was written`);
    }
    if (statement.night !== null) {
      const night = statement.night;
      const last = entries[statement.logSize - 1];
      const next = entries[statement.logSize];
      if (last && last.at >= night) differ('log', `the statement's prefix ends with entry ${statement.logSize - 1}, dated after its night`);
      if (next && next.at < night) differ('log', `entry ${statement.logSize} arrived before the night but is left out of the statement's prefix`);
    }
    const reputations = reputationsAt(entries.slice(0, statement.logSize), statement.night, report);
    report.reputations = [...reputations.values()].sort((a, b) => (a.domain < b.domain ? -1 : 1));
    say(`log: ${head.size} entries; ${report.counts.members} members scored from ${report.counts.receipts} receipts and ${report.counts.acknowledgements} acknowledgements`);

    // 7. Every leaf of the hour's order: the root, the places, the sort, every reputation.
    const leaves = await fetchLeaves(json, hour, statement.orderSize);
    report.counts.leaves = leaves.length;
    const orderTree = cachedSource(arraySource(leaves.map((l) => leafHash(l))));
    if (!sameHash(treeRoot(orderTree, leaves.length), statement.orderRoot)) differ('order', `the order's ${leaves.length} leaves do not hash to the root the statement gives`);
    const parsed: OrderLeaf[] = leaves.map((text) => {
      try {
        return parseOrderLeaf(text);
      } catch (error) {
        return differ('order', (error as Error).message);
      }
    });
    const ids = new Set<string>();
    for (let i = 0; i < parsed.length; i++) {
      const leaf = parsed[i] as OrderLeaf;
      if (leaf.pos !== i + 1) differ('order', `leaf ${i + 1} says place ${leaf.pos}`);
      if (ids.has(leaf.id)) differ('order', `${leaf.id} is in the order twice`);
      ids.add(leaf.id);
      const facts = leafFactsProblem(leaf);
      if (facts) differ('order', `place ${leaf.pos} (${leaf.domain}): ${facts}`);
      if (leaf.member) {
        const rep = reputations.get(leaf.domain);
        const tier = rep?.tier ?? 'new';
        const score = rep?.scoreInt ?? 0;
        if (leaf.tier !== tier || leaf.score !== score) {
          differ('reputation', `${leaf.domain} is placed as ${leaf.tier} with score ${leaf.score}; its receipts in the log give ${tier} with score ${score}`);
        }
      }
      const before = parsed[i - 1];
      if (before && compareLeaves(statement.rules, statement.shuffleDay, before, leaf) >= 0) {
        differ('order', `place ${leaf.pos} (${leaf.domain}) should come before place ${before.pos} (${before.domain}) under rules ${statement.rules}`);
      }
    }
    say(`order: ${parsed.length} places sorted as rules ${statement.rules} say`);

    // 7b. What the order read of checks: each checked listing's level and reach from its check entry.
    if (statement.checks) {
      checkedPlaces(entries, statement.checks, parsed, report);
      say(`checks: ${report.counts.checks} check entries; ${report.counts.checked_places} places' level and reach recomputed from them`);
    }

    // 8. Pages: every listing at its place in the statement's order, with its shuffle key and reputation.
    for (const page of options.pages ?? []) {
      if (Math.floor((options.now ?? Date.now)() / HOUR_MS) * HOUR_MS !== hour) throw new Error('a search page can only be checked against the current hour\'s statement');
      const body = await json<{ businesses: Array<{ id?: string; domain: string; rank_pos?: number; rank_shuffle?: string; source?: string; reputation?: { score: number; tier: string } }> }>(page);
      report.counts.pages += 1;
      let previous = 0;
      for (const listing of body.businesses) {
        report.counts.listings += 1;
        const pos = listing.rank_pos;
        if (pos === undefined) differ('page', `${page}: ${listing.domain} has no rank_pos`);
        const place = pos as number;
        if (place <= previous) differ('page', `${page}: ${listing.domain} at place ${place} comes after place ${previous}`);
        previous = place;
        const leaf = parsed[place - 1];
        // A business listed since the hour began comes after the hour's order (docs/directory.md).
        if (!leaf) continue;
        if (leaf.id !== listing.id || leaf.domain !== listing.domain) {
          differ('page', `${page}: place ${place} shows ${listing.domain}; the hour's order has ${leaf.domain} there`);
        }
        if (listing.rank_shuffle !== shuffleKey(statement.shuffleDay, leaf.id)) differ('page', `${page}: ${listing.domain}'s rank_shuffle is not the day's shuffle key of its id`);
        if (listing.reputation && listing.source === 'member') {
          const rep = reputations.get(listing.domain);
          const shownInt = Math.floor(listing.reputation.score * 10_000 + 0.5);
          if (listing.reputation.tier !== (rep?.tier ?? 'new') || shownInt !== (rep?.scoreInt ?? 0)) {
            differ('page', `${page}: ${listing.domain} shows ${listing.reputation.tier} with score ${listing.reputation.score}; its receipts in the log give ${rep?.tier ?? 'new'} with score ${(rep?.score ?? 0).toFixed(6)}`);
          }
        }
      }
    }

    // 9. Receipts someone holds must be in the log.
    if ((options.receipts ?? []).length > 0) {
      const logged = new Set(entries.filter((e): e is Extract<EvidenceEntry, { kind: 'receipt' }> => e.kind === 'receipt').map((e) => e.jws));
      for (const jws of options.receipts ?? []) {
        if (!logged.has(jws.trim())) {
          const claims = safeClaims(jws);
          differ('receipt', `the receipt ${claims.nonce ?? '(unreadable)'} of ${claims.iss ?? '(unknown issuer)'} is not in the log's ${head.size} entries`);
        }
        report.counts.receipts_found += 1;
      }
    }
    report.ok = true;
  } catch (error) {
    if (!(error instanceof Found)) throw error;
    report.difference = error.difference;
  }
  return report;
}

function safeClaims(jws: string): Record<string, unknown> {
  try {
    return receiptClaimsOf(jws.trim());
  } catch {
    return {};
  }
}

/** Keeps roots of aligned subtrees, so many roots and proofs over one tree cost one pass. */
function cachedSource(src: HashSource): HashSource {
  const kept = new Map<string, Buffer>();
  return {
    leaf: (i) => src.leaf(i),
    known: (start, size) => kept.get(`${start}:${size}`),
    remember: (start, size, root) => {
      if (size >= 16) kept.set(`${start}:${size}`, root);
    },
  };
}

async function fetchEntries(fetchOk: (path: string) => Promise<Response>, size: number, say: (line: string) => void): Promise<Buffer[]> {
  const tiles = Math.ceil(size / TILE_WIDTH);
  const out: Buffer[][] = new Array(tiles);
  let next = 0;
  const worker = async () => {
    while (next < tiles) {
      const index = next++;
      const width = Math.min(TILE_WIDTH, size - index * TILE_WIDTH);
      const bytes = Buffer.from(await (await fetchOk(`/v1/log/${tilePath({ level: 'entries', index, width })}`)).arrayBuffer());
      const entries = decodeDataTile(bytes);
      if (entries.length !== width) throw new Found({ check: 'log', detail: `data tile ${index} holds ${entries.length} entries, not ${width}` });
      out[index] = entries;
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, tiles) }, worker));
  if (tiles > 0) say(`log: ${tiles} data tiles read`);
  return out.flat();
}

const LEAVES_PER_CALL = 10_000;

async function fetchLeaves(json: <T>(path: string) => Promise<T>, hour: number, size: number): Promise<string[]> {
  const leaves: string[] = [];
  while (leaves.length < size) {
    const page = await json<{ leaves: string[] }>(`/v1/orders/${hourName(hour)}/leaves?start=${leaves.length}&count=${Math.min(LEAVES_PER_CALL, size - leaves.length)}`);
    if (page.leaves.length === 0) throw new Found({ check: 'order', detail: `the order has ${leaves.length} leaves, the statement says ${size}` });
    leaves.push(...page.leaves);
  }
  return leaves;
}

/**
 * Every member's reputation at the night from the entries before it: the members verified in
 * them, their receipts (when each arrived) and the acknowledgements that arrived by then, through
 * the published arithmetic.
 */
function reputationsAt(prefix: readonly EvidenceEntry[], night: number | null, report: VerifyReport): Map<string, MemberReputation> {
  const members = new Map<string, { domain: string; origin: string; verifiedAt: number }>();
  const byIssuer = new Map<string, ScoredReceipt[]>();
  const held = new Map<string, ScoredReceipt>();
  for (const [i, entry] of prefix.entries()) {
    if (entry.kind === 'member') {
      if (!members.has(entry.domain)) members.set(entry.domain, { domain: entry.domain, origin: entry.origin, verifiedAt: entry.at });
    } else if (entry.kind === 'receipt') {
      const c = safeClaims(entry.jws);
      const iss = String(c.iss ?? '');
      const key = `${iss} ${String(c.nonce ?? '')}`;
      if (typeof c.nonce !== 'string' || !iss) differ('log', `entry ${i}: a receipt without iss or nonce`);
      if (held.has(key)) differ('log', `entry ${i}: the receipt ${String(c.nonce)} of ${iss} is in the log twice`);
      const receipt: ScoredReceipt = {
        receiptId: String(c.nonce),
        knd: String(c.knd ?? ''),
        out: typeof c.out === 'string' ? c.out : null,
        ref: typeof c.ref === 'string' ? c.ref : null,
        sub: String(c.sub ?? ''),
        itm: String(c.itm ?? ''),
        iat: Number(c.iat ?? 0),
        due: Number(c.due ?? 0),
        paid: c.pay === 1 || c.knd === 'paid',
        aut: c.aut === 1,
        counted: c.sbx !== 1,
        arrivedAt: entry.at,
        acknowledged: false,
      };
      held.set(key, receipt);
      const list = byIssuer.get(iss) ?? [];
      list.push(receipt);
      byIssuer.set(iss, list);
      report.counts.receipts += 1;
    } else if (entry.kind === 'ack') {
      const receipt = held.get(`${entry.iss} ${entry.receipt_id}`);
      if (!receipt) differ('log', `entry ${i}: an acknowledgement of a receipt the log does not hold before it`);
      (receipt as ScoredReceipt).acknowledged = true;
      report.counts.acknowledgements += 1;
    }
  }
  report.counts.members = members.size;
  const result = new Map<string, MemberReputation>();
  if (night === null) return result;
  for (const member of members.values()) {
    const receipts = byIssuer.get(member.origin) ?? [];
    const score = scoreBusiness(evidencePieces(receipts, night), Math.floor(night / 1000), Math.floor(member.verifiedAt / 1000));
    result.set(member.domain, { ...score, domain: member.domain, origin: member.origin });
  }
  return result;
}

type CheckEntry = Extract<EvidenceEntry, { kind: 'check' }>;

/**
 * The places whose doors come from a check (docs/verifiable-order.md "What the verifier checks"):
 * the order read its listings while the log grew from `from` to `to` entries, so what it read of a
 * site is the site's newest check entry below one of those sizes: the newest below `from`, or one
 * written in between. A place whose listing a check entry names must show the level and reach one of
 * those entries gives; a listing a check withdrew before `from` must not be in the order; a listing
 * listed before `from` and by every entry after must be.
 */
function checkedPlaces(entries: readonly EvidenceEntry[], window: { from: number; to: number }, leaves: readonly OrderLeaf[], report: VerifyReport): void {
  if (window.to > entries.length) differ('log', `the statement's order read the log up to ${window.to} entries; its head has ${entries.length}`);
  const bySite = new Map<string, { index: number; entry: CheckEntry }[]>();
  const members = new Set<string>();
  for (let i = 0; i < window.to; i++) {
    const entry = entries[i] as EvidenceEntry;
    if (entry.kind === 'member') members.add(entry.domain);
    if (entry.kind !== 'check') continue;
    report.counts.checks += 1;
    const list = bySite.get(entry.site) ?? [];
    list.push({ index: i, entry });
    bySite.set(entry.site, list);
  }
  /** The entries the order may have read of a site: its newest below `from`, and each after it up to `to`. */
  const readable = (list: readonly { index: number; entry: CheckEntry }[]) => {
    const before = list.filter((c) => c.index < window.from);
    return [...before.slice(-1), ...list.filter((c) => c.index >= window.from)];
  };
  const placed = new Set<string>();
  for (const leaf of leaves) {
    placed.add(leaf.id);
    // A member verified on a found listing's domain keeps its id: its doors are its inbox's, not a check's.
    if (leaf.member && members.has(leaf.domain)) continue;
    const list = bySite.get(siteOf(leaf.domain));
    if (!list || !list.some((c) => c.entry.listing === leaf.id)) continue;
    if (leaf.member) differ('check', `${leaf.domain} is placed as a member; the log has no member of that domain, and its check lists it as found`);
    const candidates = readable(list);
    const naming = candidates.filter((c) => c.entry.listing === leaf.id);
    if (naming.length === 0) {
      const last = candidates[candidates.length - 1] as { index: number };
      differ('check', `${leaf.domain} is at place ${leaf.pos}; its check in the log (entry ${last.index}) withdrew it before the order read its listings`);
    }
    const fits = naming.some((c) => {
      const p = doorPlacement(c.entry.doors);
      return p.level === leaf.level && (leaf.answering ? 1 : p.agentDoor ? 2 : 3) === leaf.reach;
    });
    if (!fits) {
      const c = naming[naming.length - 1] as { index: number; entry: CheckEntry };
      const p = doorPlacement(c.entry.doors);
      differ('check', `${leaf.domain} is placed at level ${DOOR_LEVELS[leaf.level] ?? leaf.level} (${leaf.level}), reach ${leaf.reach}; its check in the log (entry ${c.index}) gives level ${DOOR_LEVELS[p.level]} (${p.level}), reach ${p.agentDoor ? 2 : 3}`);
    }
    report.counts.checked_places += 1;
  }
  for (const list of bySite.values()) {
    const candidates = readable(list);
    const listed = candidates.filter((c) => c.entry.listing !== null);
    // A listing first listed while the order read may or may not have been read.
    if (listed.length === 0 || listed.length !== candidates.length || (candidates[0] as { index: number }).index >= window.from) continue;
    if (!listed.some((c) => placed.has(c.entry.listing as string))) {
      const c = listed[listed.length - 1] as { index: number; entry: CheckEntry };
      differ('check', `the check at entry ${c.index} lists ${c.entry.listing}, which the hour's order leaves out`);
    }
  }
}

/** SHA-256 of a receipt's JWS, base64url, as acknowledgements bind it. */
export function receiptSha256(jws: string): string {
  return createHash('sha256').update(jws, 'utf8').digest('base64url');
}
