/**
 * Durable jobs of the identity work (docs/identity.md): asking a network to issue a first-time
 * customer's key (a job: a booking never waits for it), and reporting the outcome receipts of items
 * whose customer a network presented. Calls happen in `prepare`, outside any transaction.
 */
import type { JobRecord } from '@svc/shared';
import { loadSettings } from '../domain/context.js';
import type { NetworkStatus } from '../domain/identity/network-status.js';
import type { Clock } from '../domain/types.js';
import type { InboxStore } from '../store/store.js';
import { signedPost, type NetworkSigner } from './person-client.js';

/** Issuance may take the network a mail send: a longer cap than presentations, still bounded. */
const ISSUE_TIMEOUT_MS = 15_000;

export function issuePersonHandler(store: InboxStore, clock: Clock, signer: () => Promise<NetworkSigner | null>) {
  return {
    prepare: async (job: JobRecord): Promise<NetworkStatus | null> => {
      const itemId = String(job.payload.itemId);
      const origin = String(job.payload.origin);
      const item = await store.items.get(itemId);
      const { settings } = await loadSettings(store);
      const entry = settings.networks[origin];
      if (!item?.contact?.email || !entry?.enabled || !entry.issue) return null;
      const using = await signer();
      if (!using) return 'cannot_sign';
      try {
        const answer = await signedPost(using, origin, '/v1/persons', { email: item.contact.email, request_id: item.id }, ISSUE_TIMEOUT_MS);
        if (answer.status === 201) return 'issued';
        if (answer.status === 200 && answer.body.status === 'person_exists') return 'person_exists';
        if (answer.status === 200 && answer.body.status === 'issued') return 'issued';
        if (answer.status === 429) return 'rate_limited';
        throw new Error(`the network answered HTTP ${answer.status}`);
      } catch (error) {
        // Shown while it is retried (the job's own rollback must not erase it).
        await store.persons.setNetworkStatus(itemId, origin, 'unreachable', clock.now());
        throw error;
      }
    },
    commit: async (job: JobRecord, tx: InboxStore, prepared: unknown): Promise<void> => {
      if (prepared === null) return;
      await tx.persons.setNetworkStatus(String(job.payload.itemId), String(job.payload.origin), prepared as NetworkStatus, clock.now());
    },
  };
}

export function reportOutcomesHandler(store: InboxStore, signer: () => Promise<NetworkSigner | null>) {
  return {
    prepare: async (job: JobRecord): Promise<number> => {
      const itemId = String(job.payload.itemId);
      const [persons, receipts] = await Promise.all([store.persons.itemPersons(itemId), store.receipts.listForItem(itemId)]);
      const outcomes = receipts.filter((r) => r.kind === 'outcome');
      if (persons.length === 0 || outcomes.length === 0) return 0;
      const using = await signer();
      if (!using) return 0;
      let sent = 0;
      for (const person of persons) {
        for (const receipt of outcomes) {
          const answer = await signedPost(using, person.network, `/v1/presentations/${encodeURIComponent(person.presentationId)}/outcomes`, { receipt: receipt.jws });
          // The network counts each (presentation, receipt) once; a refusal for good is not retried.
          if (answer.status >= 500 || answer.status === 429) throw new Error(`the network answered HTTP ${answer.status}`);
          sent += 1;
        }
      }
      return sent;
    },
    commit: async (): Promise<void> => undefined,
  };
}
