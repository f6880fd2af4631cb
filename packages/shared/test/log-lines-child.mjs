// A service writing its log to standard output (log-lines.test.ts): N requests, a last pino line, then exit at once.
/* global process */
import { createServiceApp } from '@svc/shared';

const count = Number(process.argv[2]);
const app = createServiceApp({ logLevel: 'info', bodyLimitBytes: 1024, problemsBase: 'https://example.test/problems' });
app.get('/n/:n', async () => ({ ok: true }));
for (let n = 0; n < count; n++) await app.inject({ method: 'GET', url: `/n/${n}` });
app.log.info('last words');
// No close, no waiting: what is gathered must still be written before the process is gone.
process.exit(0);
