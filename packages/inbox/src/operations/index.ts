/** The inbox's operation table: every door (REST, OpenAPI, MCP) is generated from this list. */
import { assertOperationTable, type AnyOperation } from '@svc/shared';
import type { OperationContext } from './context.js';
import * as aiApps from './owner-ai-apps.js';
import * as feeds from './owner-feeds.js';
import * as owner from './owner-items.js';
import * as keys from './owner-keys.js';
import * as networks from './owner-networks.js';
import * as rules from './owner-rules.js';
import * as settings from './owner-settings.js';
import * as setup from './owner-setup.js';
import * as signingKeys from './owner-signing-keys.js';
import * as webhooks from './owner-webhooks.js';
import * as events from './owner-events.js';
import * as business from './public-business.js';
import * as items from './public-items.js';
import * as receipts from './public-receipts.js';
import * as customers from './public-customers.js';
import { PUSH_OPERATIONS } from './owner-push.js';

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
  receipts.acknowledgeReceiptOperation,
  customers.verifyCustomerOperation,
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
  rules.listRulesOperation,
  rules.getRuleOperation,
  rules.upsertRuleOperation,
  rules.deleteRuleOperation,
  rules.testRuleOperation,
  keys.listApiKeysOperation,
  keys.getApiKeyOperation,
  keys.createApiKeyOperation,
  keys.revokeApiKeyOperation,
  aiApps.listAiAppsOperation,
  aiApps.revokeAiAppOperation,
  networks.getNetworksOperation,
  signingKeys.listSigningKeysOperation,
  signingKeys.rotateSigningKeyOperation,
  feeds.listFeedsOperation,
  feeds.addFeedOperation,
  feeds.getFeedOperation,
  feeds.importFeedNowOperation,
  feeds.removeFeedOperation,
  webhooks.listWebhooksOperation,
  webhooks.getWebhookOperation,
  webhooks.createWebhookOperation,
  webhooks.updateWebhookOperation,
  webhooks.deleteWebhookOperation,
  webhooks.rotateWebhookSecretOperation,
  webhooks.sendTestEventOperation,
  webhooks.listWebhookDeliveriesOperation,
  webhooks.listDeliveriesOperation,
  webhooks.replayWebhookDeliveryOperation,
  webhooks.replayMissingWebhookDeliveriesOperation,
  events.listEventsOperation,
  ...PUSH_OPERATIONS,
];

export const OPERATIONS: readonly AnyOperation<OperationContext>[] = [...PUBLIC_OPERATIONS, ...OWNER_OPERATIONS];
assertOperationTable(OPERATIONS);

export type { OperationContext } from './context.js';
