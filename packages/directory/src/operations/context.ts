/** What a directory operation's handler receives. Every read is public; nobody signs in. */
import { defineOperation, type OperationDefinition } from '@svc/shared';
import type { z } from 'zod';
import type { DirectoryContext } from '../domain/context.js';
import type { DirectorySearch } from '../domain/search/search-service.js';

export interface DirectoryOperationContext {
  domain: DirectoryContext;
  search: DirectorySearch;
}

export function directoryOperation<I extends z.ZodType, O extends z.ZodType>(
  definition: OperationDefinition<DirectoryOperationContext, I, O>,
): OperationDefinition<DirectoryOperationContext, I, O> {
  return defineOperation(definition);
}

export const READ = { readOnlyHint: true, idempotentHint: true, destructiveHint: false } as const;
