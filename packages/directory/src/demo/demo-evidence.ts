/**
 * The demo's receipts (issue 13): every demo member's listing gets its receipts, outcomes and
 * reputation from the same path as a real member's. For each demo inbox a history of promises is
 * made up (from the demo seed and its domain, so every run makes the same), signed as compact JWS
 * receipts with the inbox's own demo key, some acknowledged by demo customers' agents with theirs,
 * and held through the intake's recordReceipt; then the listings follow their tallies and the last
 * midnight's snapshot scores them. A listing, /v1/stats and GET /v1/ranking can therefore never
 * disagree about a demo business.
 *
 * Demo inboxes are the verified instances without a stored manifest (demo/seed-directory.ts: their
 * domains are fictional and never fetched). Nothing is made for one that already holds receipts, so a
 * data folder seeded before receipts were real gets its history at the next start, and none twice.
 */
import { createPrivateKey, createHash, type KeyObject } from 'node:crypto';
import {
  RECEIPT_ACK_TYP,
  RECEIPT_CLAIMS_VERSION,
  RECEIPT_TYP,
  ed25519PublicJwk,
  receiptSha256,
  signCompactJws,
  type OutcomeCode,
  type ReceiptClaims,
} from '@svc/shared';
import type { DirectoryContext } from '../domain/context.js';
import type { HeldReceipt } from '../domain/receipts/held-receipt.js';
import { recordAcknowledgement, recordReceipt } from '../domain/receipts/intake.js';
import { memberRef, recordMember } from '../domain/evidence/evidence-log.js';
import { followTally } from '../domain/receipts/listing-sync.js';
import type { ReputationSnapshots } from '../domain/reputation/snapshot.js';
import { DAY_MS, nightOf, midnightOf } from '../domain/reputation/reputation.js';
import type { DirectoryStore, InstanceRecord } from '../store/store.js';
import { chance, hashString, int, sfc32, type Rand } from './prng.js';

const HOUR_MS = 3_600_000;
/** The history made up reaches this far back. */
const HISTORY_MS = 300 * DAY_MS;
/** Demo customers' agents (each acknowledgement is signed by one of them). */
const AGENTS = 8;

interface DemoKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: ReturnType<typeof ed25519PublicJwk>;
}

/** An Ed25519 key from 32 bytes derived from the demo seed and a name (PKCS#8 of the seed). */
function demoKey(seed: number, name: string): DemoKey {
  const bytes = createHash('sha256').update(`svc-demo-key:${seed}:${name}`).digest();
  const privateKey = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), bytes]), format: 'der', type: 'pkcs8' });
  const exported = privateKey.export({ format: 'jwk' });
  const publicJwk = ed25519PublicJwk({ kty: 'OKP', crv: 'Ed25519', x: exported.x as string });
  return { kid: publicJwk.kid as string, privateKey, publicJwk };
}

function isDemoInstance(instance: InstanceRecord): boolean {
  return instance.status === 'verified' && instance.verifiedAt !== null && instance.manifest === null;
}

interface Made {
  receipt: HeldReceipt;
  claims: ReceiptClaims;
}

/** One demo inbox's history: its promises, how each ended, which its customers acknowledged. */
function history(instance: InstanceRecord, seed: number, agents: readonly DemoKey[], lastMidnight: number): HeldReceipt[] {
  const verifiedAt = instance.verifiedAt as number;
  const rand: Rand = sfc32(hashString(`${seed}:receipts:${instance.domain}`));
  // Promises need time to be made and closed before the last midnight.
  const from = Math.max(verifiedAt, lastMidnight - HISTORY_MS);
  const until = lastMidnight - 6 * HOUR_MS;
  if (until - from < DAY_MS) return [];
  const promises = Math.floor(rand() * rand() * 44);
  if (promises === 0) return [];
  const key = demoKey(seed, instance.domain);
  const customers = Math.max(1, Math.floor(promises * (0.3 + rand() * 0.6)));
  const subOf = (n: number) => createHash('sha256').update(`${instance.domain}:customer:${n}`).digest('base64url').slice(0, 22);
  const made: Made[] = [];
  let counter = 0;
  const sign = (claims: Omit<ReceiptClaims, 'ver' | 'iss' | 'nonce'>, arrivedAt: number, ack: DemoKey | null): Made => {
    counter += 1;
    const full = { ver: RECEIPT_CLAIMS_VERSION, iss: instance.origin, nonce: createHash('sha256').update(`${instance.domain}:${counter}`).digest('hex').slice(0, 32), ...claims } as ReceiptClaims;
    const jws = signCompactJws({ alg: 'EdDSA', typ: RECEIPT_TYP, kid: key.kid }, full as unknown as Record<string, unknown>, key.privateKey);
    const sha256 = receiptSha256(jws);
    const ackIat = Math.floor(arrivedAt / 1000) + 60;
    const ackJws = ack ? signCompactJws({ alg: 'EdDSA', typ: RECEIPT_ACK_TYP, jwk: ack.publicJwk }, { rcp: full.nonce, sha: sha256, iat: ackIat }, ack.privateKey) : null;
    return {
      claims: full,
      receipt: {
        iss: full.iss,
        receiptId: full.nonce,
        domain: instance.domain,
        kid: key.kid,
        jws,
        sha256,
        typ: full.typ,
        knd: full.knd,
        out: full.out ?? null,
        ref: full.ref ?? null,
        prv: null,
        sub: full.sub,
        itm: full.itm,
        iat: full.iat,
        due: full.due,
        end: full.end ?? null,
        paid: full.pay === 1 || full.knd === 'paid',
        aut: full.aut === 1,
        counted: true,
        arrivedAt,
        ack: ackJws ? { jws: ackJws, jkt: ack!.kid, iat: ackIat, at: arrivedAt + 60_000 } : null,
      },
    };
  };
  for (let p = 0; p < promises; p++) {
    const booking = chance(rand, 0.7);
    const typ = booking ? 'booking' : 'order';
    const sub = subOf(int(rand, 0, customers - 1));
    const itm = `demo-${hashString(`${instance.domain}:${p}`).toString(36)}`;
    const madeAt = from + Math.floor(rand() * (until - from - 12 * HOUR_MS));
    const due = madeAt + Math.floor((2 + rand() * 70) * HOUR_MS);
    const end = booking ? due + Math.floor((0.5 + rand() * 1.5) * HOUR_MS) : undefined;
    const agent = agents[int(rand, 0, agents.length - 1)] as DemoKey;
    const iat = Math.floor(madeAt / 1000);
    const promise = sign(
      { sub, itm, typ, knd: booking ? 'confirmed' : 'accepted', iat, due: Math.floor(due / 1000), ...(end ? { end: Math.floor(end / 1000) } : {}), evt: booking ? 'booking.confirmed' : 'order.accepted' },
      madeAt + int(rand, 1, 120) * 1000,
      chance(rand, 0.2) ? agent : null,
    );
    made.push(promise);
    const paid = !booking && chance(rand, 0.7);
    // How it ended: mostly kept, some broken by the business, some by the customer, some called off in time.
    const closedAt = (end ?? due) + Math.floor(rand() * (booking ? 48 : 96) * HOUR_MS);
    if (closedAt >= until) continue;
    const r = rand();
    const out: OutcomeCode =
      r < 0.84
        ? booking
          ? 'booking.completed'
          : 'order.fulfilled'
        : r < 0.9
          ? booking
            ? 'booking.cancelled_by_customer'
            : 'order.cancelled_by_customer'
          : r < 0.95
            ? booking
              ? 'booking.cancelled_by_business'
              : 'order.not_fulfilled'
            : booking
              ? 'booking.no_show_customer'
              : 'order.lapsed';
    const closedIat = Math.floor((out === 'booking.cancelled_by_business' ? Math.min(closedAt, due - HOUR_MS) : closedAt) / 1000);
    made.push(
      sign(
        {
          sub,
          itm,
          typ,
          knd: 'outcome',
          out,
          ref: promise.claims.nonce,
          iat: Math.max(iat, closedIat),
          due: Math.floor(due / 1000),
          ...(end ? { end: Math.floor(end / 1000) } : {}),
          ...(paid ? { pay: 1 as const, amt: int(rand, 5, 300) * 100, cur: 'EUR' } : {}),
          ...(booking && out === 'booking.completed' && chance(rand, 0.5) ? { aut: 1 as const } : {}),
          evt: out,
        },
        Math.max(iat * 1000, closedAt) + int(rand, 1, 600) * 1000,
        chance(rand, 0.55) ? agent : null,
      ),
    );
  }
  return made.map((m) => m.receipt).sort((a, b) => a.arrivedAt - b.arrivedAt);
}

/**
 * Makes up and holds the demo inboxes' receipts, brings their listings up to date and runs the last
 * midnight's snapshot. Returns how many receipts were held. Every demo member enters the evidence log
 * at its verification, and its receipts and acknowledgements at their arrival, all in one timeline
 * across the demo inboxes (the log's times never fall), so each keeps its own times.
 */
export async function seedDemoEvidence(ctx: DirectoryContext, snapshots: ReputationSnapshots, seed: number, nowMs: number): Promise<number> {
  const { store } = ctx;
  const lastMidnight = midnightOf(nightOf(nowMs));
  const agents = Array.from({ length: AGENTS }, (_, i) => demoKey(seed, `agent-${i}`));
  const demo = (await store.instances.list()).filter(isDemoInstance);
  let held = 0;
  const touched: string[] = [];
  /** What happened, in the order it happened: members verified (0), receipts arriving (1), acknowledgements arriving (2). */
  const events: { at: number; rank: number; run: (tx: DirectoryStore) => Promise<void> }[] = [];
  for (const instance of demo) {
    const verifiedAt = instance.verifiedAt as number;
    if (!(await store.evidence.byRef(memberRef(instance.domain)))) {
      events.push({ at: verifiedAt, rank: 0, run: async (tx) => void (await recordMember(tx, instance.domain, instance.origin, verifiedAt)) });
    }
    if ((await store.receipts.heldFrom(instance.domain)).held > 0) continue;
    const receipts = history(instance, seed, agents, lastMidnight);
    if (receipts.length === 0) continue;
    for (const receipt of receipts) {
      const bare = { ...receipt, ack: null };
      events.push({ at: receipt.arrivedAt, rank: 1, run: async (tx) => void ((await recordReceipt(tx, bare, nowMs)) && (held += 1)) });
      const ack = receipt.ack;
      if (ack) events.push({ at: ack.at, rank: 2, run: async (tx) => void (await recordAcknowledgement(tx, bare, ack, nowMs)) });
    }
    touched.push(instance.domain);
  }
  events.sort((a, b) => a.at - b.at || a.rank - b.rank);
  for (let i = 0; i < events.length; i += 500) {
    await store.transaction(async (tx) => {
      for (const event of events.slice(i, i + 500)) await event.run(tx);
    });
  }
  // The listings show their tallies now, and the night scores them.
  for (const domain of touched) await store.transaction((tx) => followTally(tx, domain, nowMs));
  if (touched.length > 0) {
    // The last midnight's night was computed without them if it ran already: computed again from the same rules.
    await store.reputation.prune(nightOf(lastMidnight + DAY_MS));
  }
  await snapshots.ensure(nightOf(nowMs));
  return held;
}
