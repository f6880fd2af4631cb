/** What a directory operation's handler receives. Every read is public; nobody signs in. */
import { defineOperation, type OperationDefinition } from '@svc/shared';
import type { z } from 'zod';
import type { DirectoryContext } from '../domain/context.js';
import type { DirectorySearch } from '../domain/search/search-service.js';
import type { CheckService } from '../domain/checks/check-service.js';

export interface DirectoryOperationContext {
  domain: DirectoryContext;
  search: DirectorySearch;
  /** The agentic check: results, asking for checks, leaderboards, counts. */
  checks: CheckService;
  /** Reads a site's /.well-known/svc-check.json now (the owner's choice for its result). */
  readOwnerChoice: (domain: string) => Promise<'hidden' | 'shown' | null>;
  /** Who is calling (the client's address), for per-caller budgets; set per request by the doors. */
  caller?: string;
}

export function directoryOperation<I extends z.ZodType, O extends z.ZodType>(
  definition: OperationDefinition<DirectoryOperationContext, I, O>,
): OperationDefinition<DirectoryOperationContext, I, O> {
  return defineOperation(definition);
}

export const READ = { readOnlyHint: true, idempotentHint: true, destructiveHint: false } as const;
