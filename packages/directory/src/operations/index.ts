/** The directory's operation table: REST, OpenAPI and MCP doors are generated from it. */
import { assertOperationTable, type AnyOperation } from '@svc/shared';
import type { DirectoryOperationContext } from './context.js';
import { getInstanceStatus, pingInstanceOperation, registerInstanceOperation } from './instance-operations.js';
import { publishReceipt } from './receipt-operations.js';
import { getBusiness, searchBusinesses } from './search-operations.js';
import { getStats } from './stats-operations.js';
import { checkBusiness, getCheckResult, getLeaderboard, getScoreRules, updateCheckVisibility } from './check-operations.js';
import { LOG_OPERATIONS } from './log-operations.js';
import { getPlaceCategory, getRankingRules, listAttributes, listCategories } from './vocabulary-operations.js';

export const DIRECTORY_OPERATIONS: readonly AnyOperation<DirectoryOperationContext>[] = [
  searchBusinesses,
  getBusiness,
  listCategories,
  getPlaceCategory,
  listAttributes,
  getRankingRules,
  getScoreRules,
  getCheckResult,
  getLeaderboard,
  checkBusiness,
  updateCheckVisibility,
  getStats,
  getInstanceStatus,
  registerInstanceOperation,
  pingInstanceOperation,
  publishReceipt,
  ...LOG_OPERATIONS,
];
assertOperationTable(DIRECTORY_OPERATIONS);

export type { DirectoryOperationContext } from './context.js';
