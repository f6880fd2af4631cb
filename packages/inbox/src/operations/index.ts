/** The inbox's operation table: every door (REST, OpenAPI, MCP) is generated from this list. */
import { assertOperationTable, type AnyOperation } from '@svc/shared';
import type { OperationContext } from './context.js';
import * as owner from './owner-items.js';
import * as settings from './owner-settings.js';
import * as setup from './owner-setup.js';
import * as business from './public-business.js';
import * as items from './public-items.js';

export const PUBLIC_OPERATIONS: readonly AnyOperation<OperationContext>[] = [
  business.getBusinessProfile,
  business.listServices,
  business.listProducts,
  business.checkAvailabilityOperation,
  items.requestQuoteOperation,
  items.createBookingOperation,
  items.createOrderOperation,
  items.getItemStatusOperation,
  items.cancelItemOperation,
  items.sendMessageOperation,
  items.acceptOfferOperation,
  items.declineOfferOperation,
];

export const OWNER_OPERATIONS: readonly AnyOperation<OperationContext>[] = [
  owner.listItemsOperation,
  owner.getItemOperation,
  owner.transitionItemOperation,
  owner.replyOperation,
  owner.setItemFlagsOperation,
  settings.getSettingsOperation,
  settings.updateSettingsOperation,
  setup.getProfileOperation,
  setup.updateProfileOperation,
  setup.listAllServicesOperation,
  setup.upsertServiceOperation,
  setup.archiveServiceOperation,
  setup.listAllProductsOperation,
  setup.upsertProductOperation,
  setup.archiveProductOperation,
  setup.getAvailabilityOperation,
  setup.setOpeningHoursOperation,
  setup.setClosuresOperation,
];

export const OPERATIONS: readonly AnyOperation<OperationContext>[] = [...PUBLIC_OPERATIONS, ...OWNER_OPERATIONS];
assertOperationTable(OPERATIONS);

export type { OperationContext } from './context.js';
