/**
 * Signing as a real inbox (packages/inbox) with its own active key, read from its store: what its
 * registration and ping jobs send (end-to-end.test.ts runs those jobs themselves), for tests that
 * want one call without the inbox's job runner.
 */
import type { Inbox } from '@svc/inbox';
import type { ApiResponse, TestDirectory } from './harness.js';
import { signed } from './signed-inbox.js';

export async function signedAsInbox(t: TestDirectory, inbox: Inbox, origin: string, method: string, path: string, body?: unknown): Promise<ApiResponse> {
  const key = await inbox.receipts.keys.active(inbox.store);
  return signed(t, { origin, key: { privateJwk: key.privateJwk } }, method, path, body);
}
