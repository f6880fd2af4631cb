/** `npm start`: one inbox on embedded defaults, with a demo business on first start. */
import { buildInbox } from './app.js';
import { readEnvironment } from './config.js';
import { createOwnerKey } from './domain/access/api-keys.js';
import { seedDemoBusiness } from './demo/seed-demo.js';

const env = readEnvironment();
const inbox = await buildInbox({ dataDir: env.dataDir, publicBaseUrl: env.publicBaseUrl, logLevel: env.logLevel });

const seeded = env.seedDemo ? await seedDemoBusiness({ store: inbox.store, clock: inbox.clock }) : false;
const ownerKeys = await inbox.store.apiKeys.countActive('owner', inbox.clock.now());
const firstKey = ownerKeys === 0 ? await createOwnerKey(inbox.store, 'First owner key', inbox.clock.now()) : null;

await inbox.http.listen({ host: env.host, port: env.port });

const base = env.publicBaseUrl;
const lines = [
  '',
  `Business inbox running at ${base}`,
  `  data folder      ${env.dataDir}${seeded ? ' (demo business "Salão Aurora" created)' : ''}`,
  `  manifest         ${base}/.well-known/agent-inbox.json`,
  `  OpenAPI          ${base}/openapi.json`,
  `  public REST      ${base}/v1/business, ${base}/v1/services, ${base}/v1/products`,
  `  owner REST       ${base}/v1/owner/items  (Authorization: Bearer <owner key>)`,
  `  health           ${base}/healthz`,
  firstKey
    ? `  owner key        ${firstKey.value}\n                   (shown once; keep it. Make another with: npm run new-owner-key)`
    : '  owner key        made at first start; make another with: npm run new-owner-key',
  '',
];
process.stdout.write(lines.join('\n') + '\n');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void inbox.close().then(() => process.exit(0));
  });
}
