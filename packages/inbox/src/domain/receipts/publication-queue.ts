/**
 * Queues receipts for the networks (docs/receipts.md "Publication"), in the transaction that issued
 * or acknowledged them: one outbox row per enabled network and receipt, and the network's publish job
 * (networks/receipt-publication-job.ts sends them). Sandbox receipts are never queued: a test item
 * says nothing of the business, and a network has nothing to learn from it.
 */
import { newId, type NewJob } from '@svc/shared';
import type { ReceiptRecord } from '../../store/receipt-store.js';
import { readSettings, type DomainContext } from '../context.js';

/** The job that sends a network's waiting receipts; one per network (dedupe key `publish:<origin>`). */
export const PUBLISH_JOB = 'network.publish_receipts';

export function publishJob(network: string, runAt: number, nowMs: number): NewJob {
  return { id: newId(nowMs), kind: PUBLISH_JOB, payload: { origin: network }, runAt, dedupeKey: `publish:${network}` };
}

/**
 * Asks for the network's publish job now, unless the network is failing: then the job keeps the time
 * its backoff chose, so receipts issued during an outage never make it call a network that is down.
 */
export async function wakePublisher(ctx: DomainContext, network: string): Promise<void> {
  const nowMs = ctx.clock.now();
  const status = await ctx.store.networkStatus.get(network);
  const retryAt = status?.publishRetryAt ?? null;
  await ctx.store.jobs.enqueue(publishJob(network, retryAt !== null && retryAt > nowMs ? retryAt : nowMs, nowMs), nowMs);
}

/** A receipt just issued goes to every network enabled now. */
export async function queuePublication(ctx: DomainContext, receipt: ReceiptRecord): Promise<void> {
  if (receipt.sandbox) return;
  const settings = await readSettings(ctx.store);
  for (const [network, entry] of Object.entries(settings.networks)) {
    if (!entry.enabled) continue;
    await ctx.store.receiptPublications.queue(network, receipt.id, ctx.clock.now());
    await wakePublisher(ctx, network);
  }
}

/** A receipt just acknowledged goes again, with its acknowledgement, to every network that has or awaits it. */
export async function queueAcknowledgement(ctx: DomainContext, receipt: ReceiptRecord): Promise<void> {
  if (receipt.sandbox) return;
  for (const network of await ctx.store.receiptPublications.wantAcknowledgement(receipt.id, ctx.clock.now())) await wakePublisher(ctx, network);
}
