/** Starts a directory from the environment (used by `npm start` and on its own). */
import { listenOrExplain } from '@svc/shared';
import { buildDirectory, type Directory } from './app.js';
import { readDirectoryEnvironment } from './config.js';
import { seedDemoDirectory } from './demo/seed-directory.js';

export async function startDirectoryFromEnvironment(env: NodeJS.ProcessEnv = process.env): Promise<{ directory: Directory; lines: string[] }> {
  const settings = readDirectoryEnvironment(env);
  const directory = await buildDirectory({
    dataDir: settings.dataDir,
    baseUrl: settings.baseUrl,
    allowLocalInboxes: settings.allowLocalInboxes,
    logLevel: settings.logLevel,
    checks: settings.checks,
  });
  const seeded = settings.seedDemo ? await seedDemoDirectory(directory.store, settings.demoListings, Date.now()) : 0;
  try {
    await listenOrExplain(directory.http, { host: settings.host, port: settings.port, service: 'directory', portSetting: 'DIRECTORY_PORT', hostSetting: 'DIRECTORY_HOST' });
  } catch (error) {
    await directory.close();
    throw error;
  }
  const base = settings.baseUrl;
  const lines = [
    `Directory network running at ${base}${seeded > 0 ? ` (${seeded} demo listings loaded)` : ''}`,
    `  search           ${base}/v1/businesses?q=cafe&open_now=true   ${base}/v1/businesses?near=38.72,-9.14&radius_km=5`,
    `  one business     ${base}/v1/businesses/{domain}`,
    `  categories       ${base}/v1/categories   attributes ${base}/v1/attributes   ranking rules ${base}/v1/ranking`,
    `  stats            ${base}/v1/stats   OpenAPI ${base}/openapi.json`,
    `  MCP              ${base}/mcp (every public read as a tool, and check_business)`,
    `  agentic check    POST ${base}/check {"url": "…"}   results ${base}/b/{domain}.json   ${base}/leaderboard.json   rules ${base}/v1/score-rules`,
    `  persons          POST ${base}/v1/persons, /v1/presentations (signed by member inboxes), /v1/passes (a person's key)`,
    `  mail             ${directory.mailer.describe} (DIRECTORY_SMTP_URL, DIRECTORY_MAIL_FROM)`,
  ];
  return { directory, lines };
}
