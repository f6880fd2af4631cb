/**
 * Checking each network's evidence log (issue 39; docs/receipts.md "The networks' logs"): after each
 * ping that goes through, a durable job reads the network's signed head, checks it against the key
 * kept from the first check and proves it extends the last head checked (RFC 9162 consistency), then
 * looks for every receipt the network took more than an hour ago and proves it is in that head
 * (inclusion). A receipt still missing is recorded once as `<type>.receipt_not_logged` on its item
 * (an event the owner's webhooks and stream carry) and counted on get_networks; a head signed by
 * another key, or one that does not extend the last, is shown there as the log's problem. A network
 * that publishes no log is not checked (its ping answers as before).
 */
import { newId, PublicFetchError, type JobRecord } from '@svc/shared';
import { leafHash, noteVerifier, openNote, parseCheckpoint, parseEntry, verifyConsistency, verifyInclusion, type Checkpoint } from '@svc/verify';
import { loadSettings } from '../domain/context.js';
import { recordEvent } from '../domain/events/record-event.js';
import type { InboxStore } from '../store/store.js';
import type { NetworkLogRecord } from '../store/network-log-store.js';
import { fewWords } from './instance-status.js';
import { getJson, networkUrl, parseJson, type NetworkCaller } from './signed-requests.js';

export const LOG_CHECK_JOB = 'network.log_check';
/** A receipt is looked for once the network has had this long (it signs a head at least hourly). */
export const LOG_GRACE_MS = 3_600_000;
/** Receipts looked for per run (the next run goes on). */
const PER_RUN = 100;

export const logCheckJob = (origin: string, runAt: number, nowMs: number) => ({ id: newId(nowMs), kind: LOG_CHECK_JOB, payload: { origin }, runAt, dedupeKey: `log-check:${origin}` });

type Checked =
  | 'disabled'
  | { skipped: string }
  | {
      record: Omit<NetworkLogRecord, 'origin'>;
      found: { receiptId: string; index: number }[];
      missing: { receiptId: string; itemId: string }[];
    };

const b64 = (text: unknown) => Buffer.from(String(text), 'base64');

async function readText(caller: NetworkCaller, url: string): Promise<{ status: number; body: string }> {
  const answer = await getJson(caller, url);
  return { status: answer.status, body: answer.body };
}

export function logCheckHandler(caller: NetworkCaller) {
  const { store, clock } = caller;
  return {
    prepare: async (job: JobRecord): Promise<Checked> => {
      const origin = String(job.payload.origin);
      const { settings } = await loadSettings(store);
      if (settings.networks[origin]?.enabled !== true) return 'disabled';
      const nowMs = clock.now();
      const kept = await store.networkLogs.get(origin);
      const problemOf = (problem: string): Checked => ({ record: { vkey: kept?.vkey ?? null, checkpoint: kept?.checkpoint ?? null, size: kept?.size ?? null, checkedAt: nowMs, problem: fewWords(problem), problemAt: nowMs }, found: [], missing: [] });
      try {
        const key = await readText(caller, networkUrl(origin, '/v1/log/key'));
        if (key.status === 404) return { skipped: 'the network publishes no evidence log' };
        const vkey = (parseJson(key.body) as { vkey?: unknown } | null)?.vkey;
        if (key.status !== 200 || typeof vkey !== 'string') return { skipped: `the network's key answered HTTP ${key.status}` };
        // The key is kept from the first check: a head signed by another later is a problem, not a new trust.
        const pinned = kept?.vkey ?? vkey;
        if (vkey !== pinned) return problemOf(`the network now publishes another log key (${vkey.split('+')[1]}) than the one its heads were signed with (${pinned.split('+')[1]})`);
        const headAnswer = await readText(caller, networkUrl(origin, '/v1/log/checkpoint'));
        if (headAnswer.status !== 200) return { skipped: `the log's head answered HTTP ${headAnswer.status}` };
        let head: Checkpoint;
        try {
          head = parseCheckpoint(openNote(headAnswer.body, [noteVerifier(pinned)]).text);
        } catch (error) {
          return problemOf(`the log's head is not signed by the network's key: ${(error as Error).message}`);
        }
        const previous = kept?.checkpoint ? parseCheckpoint(kept.checkpoint.slice(0, kept.checkpoint.indexOf('\n\n') + 1)) : null;
        if (previous) {
          if (previous.size > head.size || (previous.size === head.size && !previous.root.equals(head.root))) {
            return problemOf(`the log's head of ${head.size} entries does not extend the one of ${previous.size} checked before: two different logs`);
          }
          if (previous.size > 0 && previous.size < head.size) {
            const proof = await readText(caller, networkUrl(origin, `/v1/log/proof/consistency?from=${previous.size}&to=${head.size}`));
            const hashes = ((parseJson(proof.body) as { proof?: unknown[] } | null)?.proof ?? []).map(b64);
            if (proof.status !== 200 || !verifyConsistency(previous.size, head.size, hashes, previous.root, head.root)) {
              return problemOf(`the log's head of ${head.size} entries does not extend the one of ${previous.size} checked before: two different logs`);
            }
          }
        }
        const found: { receiptId: string; index: number }[] = [];
        const missing: { receiptId: string; itemId: string }[] = [];
        let problem: string | null = null;
        for (const receipt of await store.networkLogs.toFind(origin, nowMs - LOG_GRACE_MS, PER_RUN)) {
          const lookup = await readText(caller, networkUrl(origin, `/v1/log/lookup?iss=${encodeURIComponent(caller.signing.issuer)}&receipt_id=${receipt.receiptId}`));
          const held = lookup.status === 200 ? ((parseJson(lookup.body) as { receipt?: { index?: unknown; entry?: unknown } } | null)?.receipt ?? null) : null;
          const index = typeof held?.index === 'number' ? held.index : -1;
          const entry = typeof held?.entry === 'string' ? held.entry : '';
          if (held && index >= head.size && receipt.acceptedAt > nowMs - 2 * LOG_GRACE_MS) continue; // in the log, not in a signed head yet
          let proven = false;
          if (held && index >= 0 && index < head.size) {
            const parsed = (() => {
              try {
                return parseEntry(entry);
              } catch {
                return null;
              }
            })();
            const proof = await readText(caller, networkUrl(origin, `/v1/log/proof/inclusion?index=${index}&size=${head.size}`));
            const hashes = ((parseJson(proof.body) as { proof?: unknown[] } | null)?.proof ?? []).map(b64);
            proven = parsed?.kind === 'receipt' && parsed.jws === receipt.jws && proof.status === 200 && verifyInclusion(leafHash(entry), index, head.size, hashes, head.root);
            if (!proven) problem = `receipt ${receipt.receiptId}: the entry the log gives is not this receipt, or its proof does not hold`;
          }
          if (proven) found.push({ receiptId: receipt.receiptId, index });
          else missing.push({ receiptId: receipt.receiptId, itemId: receipt.itemId });
        }
        return { record: { vkey: pinned, checkpoint: headAnswer.body, size: head.size, checkedAt: nowMs, problem: problem && fewWords(problem), problemAt: problem ? nowMs : null }, found, missing };
      } catch (error) {
        return { skipped: error instanceof PublicFetchError ? `${error.reason}: ${error.message}` : error instanceof Error ? error.message : String(error) };
      }
    },
    commit: async (job: JobRecord, tx: InboxStore, prepared: unknown): Promise<void> => {
      const origin = String(job.payload.origin);
      const outcome = prepared as Checked;
      if (outcome === 'disabled' || 'skipped' in outcome) return;
      const nowMs = clock.now();
      await tx.networkLogs.put({ origin, ...outcome.record }, nowMs);
      for (const f of outcome.found) await tx.networkLogs.found(origin, f.receiptId, f.index, nowMs);
      for (const m of outcome.missing) {
        // Said once per receipt: the owner is told when it goes missing, not at every check.
        if (!(await tx.networkLogs.missing(origin, m.receiptId, nowMs))) continue;
        const item = await tx.items.get(m.itemId);
        if (!item) continue;
        await recordEvent(
          { store: tx, clock },
          {
            id: newId(nowMs),
            itemId: item.id,
            seq: null,
            type: `${item.type}.receipt_not_logged`,
            event: 'receipt_not_logged',
            fromState: item.state,
            toState: item.state,
            version: item.version,
            actor: { kind: 'system', id: null, name: null },
            channel: 'system',
            sandbox: item.sandbox,
            reason: null,
            data: { receipt_id: m.receiptId, network: origin },
            createdAt: nowMs,
          },
        );
      }
    },
  };
}
