/**
 * Starts one inbox from the environment (README.md "Settings"): what an operator runs once per
 * process, several of them on one PostgreSQL database (docs/storage.md). `npm start` starts an
 * inbox and a directory together; this starts the inbox alone. Stops on SIGINT and SIGTERM.
 */
import { whyStartStopped } from '@svc/shared';
import { startInboxFromEnvironment } from '../main.js';

try {
  const { inbox, lines, keyLines } = await startInboxFromEnvironment();
  process.stdout.write(`${[...lines, ...(keyLines.length > 0 ? ['', ...keyLines] : [])].join('\n')}\n`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void inbox.close().finally(() => process.exit(0)));
  }
} catch (error) {
  process.stderr.write(`inbox stopped: ${whyStartStopped(error)}\n`);
  process.exit(1);
}
