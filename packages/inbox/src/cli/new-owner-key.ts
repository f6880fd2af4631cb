/** `npm run new-owner-key`: makes another owner key in the inbox's data folder and prints it once. */
import { join } from 'node:path';
import { readEnvironment } from '../config.js';
import { createOwnerKey } from '../domain/access/api-keys.js';
import { openSqliteStore } from '../store/kysely/kysely-inbox-store.js';

const env = readEnvironment();
const store = await openSqliteStore(join(env.dataDir, 'inbox.sqlite'));
const key = await createOwnerKey(store, `Owner key ${new Date().toISOString().slice(0, 10)}`, Date.now());
await store.close();
process.stdout.write(`New owner key (shown once): ${key.value}\n`);
