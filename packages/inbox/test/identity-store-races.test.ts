/**
 * The identity and mail tables with several writers (docs/storage.md "Concurrency"), on the engine of
 * the run: on PostgreSQL two stores on one database (two processes' worth of connections), on SQLite
 * one store's callers. What must happen once happens once however many ask at once: a signature is
 * taken by one request, a code's wrong attempts stop at its limit, the same inbound message makes one
 * entry (the transaction that lost runs again and finds it), and nothing read through one store is kept past
 * the other's commit (kept reads are off on PostgreSQL).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storageTarget } from '@svc/shared';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dropTestDatabase, onPostgres, testDatabaseUrl } from '../../../test-support/test-database.js';
import { openInboxStore, type OpenedInboxStore } from '../src/store/kysely/kysely-inbox-store.js';

const dir = mkdtempSync(join(tmpdir(), 'inbox-identity-races-'));
const stores: OpenedInboxStore[] = [];
const NOW = Date.UTC(2026, 10, 30, 10);

beforeAll(async () => {
  const target = storageTarget(await testDatabaseUrl('inbox', dir), join(dir, 'inbox.sqlite'), 'INBOX_DATABASE_URL');
  stores.push(await openInboxStore(target));
  stores.push(onPostgres ? await openInboxStore(target) : (stores[0] as OpenedInboxStore));
  // Every racer has its connection open before the races start, so they truly run at once.
  await Promise.all(Array.from({ length: 12 }, (_, i) => storeOf(i).transaction(async (tx) => tx.identity.getAgent('nobody'))));
});

afterAll(async () => {
  for (const store of new Set(stores)) await store.close();
  rmSync(dir, { recursive: true, force: true });
  await dropTestDatabase('inbox', dir);
});

const storeOf = (i: number) => stores[i % 2] as OpenedInboxStore;

it('takes one signature once: of twelve requests sent at once, one is new and the others replays', { timeout: 60_000 }, async () => {
  const uses = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      storeOf(i).transaction((tx) => tx.identity.useSignature({ signatureId: 'sig-1', jkt: `agent-${i}`, idempotencyKey: null, keepUntilMs: NOW + 600_000 }, NOW)),
    ),
  );
  expect(uses.filter((u) => u === 'new')).toHaveLength(1);
  expect(uses.filter((u) => u === 'replayed')).toHaveLength(11);
  // The same agent with the same idempotency key is a retry; a kept use that ended is taken anew.
  const retry = await stores[0]!.identity.useSignature({ signatureId: 'sig-2', jkt: 'agent-a', idempotencyKey: 'k1', keepUntilMs: NOW + 1_000 }, NOW);
  expect(retry).toBe('new');
  expect(await stores[1]!.identity.useSignature({ signatureId: 'sig-2', jkt: 'agent-a', idempotencyKey: 'k1', keepUntilMs: NOW + 1_000 }, NOW)).toBe('retry');
  expect(await stores[1]!.identity.useSignature({ signatureId: 'sig-2', jkt: 'agent-b', idempotencyKey: 'k1', keepUntilMs: NOW + 1_000 }, NOW)).toBe('replayed');
  expect(await stores[1]!.identity.useSignature({ signatureId: 'sig-2', jkt: 'agent-b', idempotencyKey: null, keepUntilMs: NOW + 90_000 }, NOW + 2_000)).toBe('new');
});

it('counts wrong attempts at a code one after the other: twelve at once spend exactly its five', { timeout: 60_000 }, async () => {
  await stores[0]!.identity.addCode({ id: 'code-1', itemId: 'item-1', addressHash: 'h', codeHash: 'c', sentTo: 'a***@e***.com', createdAt: NOW, expiresAt: NOW + 600_000, attempts: 0, usedAt: null });
  // As verify_customer does with a wrong code: read the code, refuse past the limit, else count the attempt.
  const answers = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      storeOf(i).transaction(async (tx) => {
        const held = await tx.identity.latestCode('item-1');
        if (!held || held.attempts >= 5) return 'too_many_attempts';
        await tx.identity.countAttempt(held.id);
        return 'bad_code';
      }),
    ),
  );
  expect(answers.filter((a) => a === 'bad_code')).toHaveLength(5);
  expect((await stores[1]!.identity.latestCode('item-1'))?.attempts).toBe(5);
});

it('makes one entry of one inbound message taken by several at once', { timeout: 60_000 }, async () => {
  // As inbound mail does: a message seen before is a duplicate; else write what it brings and remember it, in one transaction.
  const answers = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      storeOf(i).transaction(async (tx) => {
        if (await tx.mail.inboundItem('message-1')) return 'duplicate';
        await tx.mail.addOutbound({ id: `mail-${i}`, kind: 'notice', itemId: 'item-m', to: 'a@example.com', subject: 's', sealedText: null, messageId: `<m${i}@x>`, status: 'sent', createdAt: NOW, sentAt: NOW });
        await tx.mail.rememberInbound('message-1', 'item-m', NOW);
        return 'created';
      }),
    ),
  );
  expect(answers.filter((a) => a === 'created')).toHaveLength(1);
  expect(await stores[0]!.mail.listForItem('item-m')).toHaveLength(1);
});

it('never sends an item more codes than its limit, however many ask at once', { timeout: 60_000 }, async () => {
  // As verify_customer does before a send: count the item's and the address's codes, refuse at the limit, else add one, in one transaction.
  const answers = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      storeOf(i).transaction(async (tx) => {
        const [forItem, forAddress] = await Promise.all([tx.identity.countCodes({ itemId: 'item-2', sinceMs: NOW - 3_600_000 }), tx.identity.countCodes({ addressHash: 'h2', sinceMs: NOW - 86_400_000 })]);
        if (forItem >= 3 || forAddress >= 3) return 'too_many_attempts';
        await tx.identity.addCode({ id: `code-2-${i}`, itemId: 'item-2', addressHash: 'h2', codeHash: 'c', sentTo: 'a***@e***.com', createdAt: NOW, expiresAt: NOW + 600_000, attempts: 0, usedAt: null });
        return 'sent';
      }),
    ),
  );
  expect(answers.filter((a) => a === 'sent')).toHaveLength(3);
});

it('keeps no read past another writer\'s commit: settings written through one store are read fresh through the other', { timeout: 60_000 }, async () => {
  const { keptRead } = await import('../src/domain/kept-reads.js');
  const [one, two] = stores as [OpenedInboxStore, OpenedInboxStore];
  let reads = 0;
  const readSettings = async () => {
    reads++;
    return (await one.settings.get())?.document ?? null;
  };
  const before = await keptRead(one, 'settings', readSettings);
  const held = await two.settings.get();
  expect(await two.settings.put({ ...(held?.document ?? {}), marker: 'written by the other store' }, held?.version ?? null, NOW)).toBe(true);
  // On PostgreSQL the other store is another process's worth of connections: its commit is not counted here, so nothing may be kept.
  const after = (await keptRead(one, 'settings', readSettings)) as Record<string, unknown>;
  expect(after.marker).toBe('written by the other store');
  expect(before).not.toBe(after);
  expect(reads).toBe(2);
});
