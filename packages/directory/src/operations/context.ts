/** What a directory operation's handler receives. Every read is public; nobody signs in. */
import { defineOperation, type OperationDefinition } from '@svc/shared';
import type { z } from 'zod';
import type { DirectoryContext } from '../domain/context.js';
import type { BusinessViews } from '../domain/search/business-views.js';
import type { DirectorySearch } from '../domain/search/search-service.js';
import type { SignedCaller } from '../domain/signed/signed-call.js';
import type { CheckService } from '../domain/checks/check-service.js';
import type { NetworkStats } from '../domain/stats/network-stats.js';
import type { VerifiableOrder } from '../domain/evidence/verifiable-order.js';

export interface DirectoryOperationContext {
  domain: DirectoryContext;
  search: DirectorySearch;
  /** Each business's detail view, kept between reads while what it was drawn from holds. */
  businesses: BusinessViews;
  /** The agentic check: results, asking for checks, leaderboards, counts. */
  checks: CheckService;
  /** GET /v1/stats's answer, kept a moment while nothing it reads was written. */
  stats: NetworkStats;
  /** The evidence log, the network's key and the hours' statements (docs/verifiable-order.md). */
  order: VerifiableOrder;
  /** Reads a site's /.well-known/svc-check.json now (the owner's choice for its result). */
  readOwnerChoice: (domain: string) => Promise<'hidden' | 'shown' | null>;
  /** Who is calling (the client's address), for per-caller budgets; set per request by the doors. */
  callerAddress?: string;
  /** The inbox a signed call was verified to come from (the REST door checks it before the body: INSTANCE_SIGNED). */
  caller?: SignedCaller;
}

/** Operations an inbox calls, signed with HTTP Message Signatures (svc-instance/1); everything else is a public read. */
export const INSTANCE_SIGNED: ReadonlySet<string> = new Set(['register_instance', 'ping_instance', 'publish_receipt']);

export function directoryOperation<I extends z.ZodType, O extends z.ZodType>(
  definition: OperationDefinition<DirectoryOperationContext, I, O>,
): OperationDefinition<DirectoryOperationContext, I, O> {
  return defineOperation(definition);
}

export const READ = { readOnlyHint: true, idempotentHint: true, destructiveHint: false } as const;
