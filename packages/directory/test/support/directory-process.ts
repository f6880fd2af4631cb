/**
 * One directory node as `npm start` starts it (startDirectoryFromEnvironment), alone in a process, for
 * tests that do things to its database while it runs. Prints one JSON line {baseUrl} once it listens;
 * stops on SIGTERM. Settings come from the environment (DIRECTORY_DATABASE_URL, DIRECTORY_PORT, …).
 */
import { startDirectoryFromEnvironment } from '../../src/main.js';

const { directory } = await startDirectoryFromEnvironment();
process.stdout.write(`${JSON.stringify({ baseUrl: `http://127.0.0.1:${process.env.DIRECTORY_PORT}` })}\n`);
process.on('SIGTERM', () => void directory.close().then(() => process.exit(0)));
