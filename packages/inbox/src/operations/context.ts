/**
 * What an inbox operation's handler receives: the domain context (bound to the call's transaction),
 * the resolved caller, and what the door extracted from headers. Doors build it; handlers read it.
 */
import { decodeCursor, defineOperation, encodeCursor, invalidField, type OperationDefinition } from '@svc/shared';
import { z } from 'zod';
import type { DomainContext } from '../domain/context.js';
import type { SecretBox } from '../domain/secrets/secret-box.js';
import type { Caller } from '../domain/types.js';
import type { KeptAnswers } from './kept-answers.js';
import type { IdentityKeys } from '../domain/identity/identity-keys.js';

export interface InboxConfigView {
  publicBaseUrl: string;
  softwareVersion: string;
  /** Development: feed URLs on 127.0.0.1 over http may be added and fetched (INBOX_ALLOW_LOCAL_FEEDS). */
  allowLocalFeeds?: boolean;
  /** Development: webhook URLs on 127.0.0.1 over http may be registered and sent to (INBOX_ALLOW_LOCAL_WEBHOOKS). */
  allowLocalWebhooks?: boolean;
  /** Development: networks on 127.0.0.1 / localhost over http may be set in settings.networks (INBOX_ALLOW_LOCAL_NETWORKS). */
  allowLocalNetworks?: boolean;
  /** The instance's VAPID public key (docs/web.md "Push"). */
  pushPublicKey?: string;
  /** Development and tests: push endpoints on 127.0.0.1 over http (INBOX_ALLOW_LOCAL_PUSH). */
  allowLocalPush?: boolean;
}

export interface OperationContext {
  domain: DomainContext;
  caller: Caller;
  /** The item access token from the x-access-token header, when sent. */
  accessTokenHeader: string | undefined;
  config: InboxConfigView;
  /** Seals secrets kept at rest (webhook secrets and header values). */
  secrets: SecretBox;
  /** Public reads kept in memory with their bytes (kept-answers.ts). */
  keptAnswers: KeptAnswers;
  /** Keyed hashes of customer data (codes, addresses) and the sender's mail domain (docs/identity.md). */
  identity: IdentityServices;
}

export interface IdentityServices {
  keys: IdentityKeys;
  /** The domain of the sender address, for Message-IDs. */
  mailHost: string;
}

export function inboxOperation<I extends z.ZodType, O extends z.ZodType>(
  definition: OperationDefinition<OperationContext, I, O>,
): OperationDefinition<OperationContext, I, O> {
  return defineOperation(definition);
}

export const idempotencyKeyField = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe('Makes a retry safe: the same key and request replays the first answer. Or send header Idempotency-Key.');

export const accessTokenField = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe('The item\'s access token from its create answer; or send header x-access-token.');

export const expectedVersionField = z
  .number()
  .int()
  .min(1)
  .optional()
  .describe('Refuse with version_conflict unless the item is at this version.');

export const pageFields = {
  cursor: z.string().min(1).max(512).optional().describe('next_cursor of the previous page.'),
  limit: z.number().int().min(1).max(100).default(50).describe('Page size, 1 to 100.'),
};

export const itemIdField = z.string().min(1).max(64).describe('The item id.');

export const READ = { readOnlyHint: true, idempotentHint: true, destructiveHint: false } as const;
export const CREATE = { readOnlyHint: false, idempotentHint: false, destructiveHint: false } as const;
export const CHANGE = { readOnlyHint: false, idempotentHint: false, destructiveHint: true } as const;
export const PUT = { readOnlyHint: false, idempotentHint: true, destructiveHint: true } as const;

/** The cursor handed out for a keyset position (opaque to callers). */
export function nextCursor(position: string | null): string | null {
  return position === null ? null : encodeCursor({ k: position });
}

/** The keyset position inside a cursor; a cursor we did not give out is an input problem. */
export function cursorPosition(cursor: string | undefined, isPosition: (position: string) => boolean = () => true): string | undefined {
  if (cursor === undefined) return undefined;
  const { k } = decodeCursor(cursor, (v): v is { k: string } => typeof v === 'object' && v !== null && typeof (v as { k?: unknown }).k === 'string');
  if (!isPosition(k)) throw invalidField('cursor', 'cursor is not one this service gave out.');
  return k;
}

/** Keyset pairs [sort value, id] travel as JSON inside the cursor. */
export function isPairPosition(kind: 'number' | 'string') {
  return (position: string): boolean => {
    try {
      const value = JSON.parse(position) as unknown;
      return Array.isArray(value) && value.length === 2 && typeof value[0] === kind && typeof value[1] === 'string';
    } catch {
      return false;
    }
  };
}
