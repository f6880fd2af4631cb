export { buildInbox, type Inbox, type InboxOptions } from './app.js';
export { startInboxFromEnvironment } from './main.js';
export { createOwnerKey } from './domain/access/api-keys.js';
