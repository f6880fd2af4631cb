/**
 * The rules jobs (docs/rules.md): `rules.run` runs the immediate rules an event started,
 * `rules.run_delayed` one delayed rule at its time. Both were queued in the event's own
 * transaction, so a restart between the event and the run loses nothing; both end quietly when
 * the item moved on since the event.
 */
import { runDelayedRule, runRulesAfterEvent } from '../domain/rules/rule-engine.js';
import { DELAYED_RULE_JOB, RULES_JOB, type RuleJobPayload } from '../domain/rules/schedule-rules.js';
import type { ReceiptSigning } from '../domain/receipts/signing-keys.js';
import type { Clock } from '../domain/types.js';
import type { InboxStore, JobRecord } from '../store/store.js';

export { DELAYED_RULE_JOB, RULES_JOB };

function payloadOf(job: JobRecord): RuleJobPayload {
  const p = job.payload;
  return {
    itemId: String(p.itemId),
    version: Number(p.version),
    eventType: String(p.eventType),
    depth: Number(p.depth ?? 0),
    causedByRuleId: typeof p.causedByRuleId === 'string' ? p.causedByRuleId : null,
    ...(typeof p.ruleId === 'string' ? { ruleId: p.ruleId } : {}),
  };
}

export function rulesHandler(clock: Clock, receipts: ReceiptSigning) {
  return (job: JobRecord, store: InboxStore): Promise<void> => runRulesAfterEvent({ store, clock, receipts }, payloadOf(job));
}

export function delayedRuleHandler(clock: Clock, receipts: ReceiptSigning) {
  return (job: JobRecord, store: InboxStore): Promise<void> => runDelayedRule({ store, clock, receipts }, payloadOf(job));
}
