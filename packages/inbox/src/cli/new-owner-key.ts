/** `npm run new-owner-key`: makes another owner key in the inbox's database (data folder or INBOX_DATABASE_URL) and prints it once. */
import { join } from 'node:path';
import { readEnvironment } from '../config.js';
import { createOwnerKey } from '../domain/access/api-keys.js';
import { storageTarget } from '@svc/shared';
import { openInboxStore } from '../store/kysely/kysely-inbox-store.js';

const env = readEnvironment();
const store = await openInboxStore(storageTarget(env.databaseUrl, join(env.dataDir, 'inbox.sqlite'), 'INBOX_DATABASE_URL'));
const key = await createOwnerKey(store, `Owner key ${new Date().toISOString().slice(0, 10)}`, Date.now());
await store.close();
process.stdout.write(`New owner key (shown once): ${key.value}\n`);
