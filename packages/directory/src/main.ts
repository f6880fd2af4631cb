/** Starts a directory from the environment (used by `npm start` and on its own). */
import { describeStorage, listenOrExplain, storageTarget } from '@svc/shared';
import { join } from 'node:path';
import { buildDirectory, type Directory } from './app.js';
import { tuneCollectorForServing, type CollectorSetting } from './collector-setting.js';
import { readDirectoryEnvironment } from './config.js';
import { seedDemoEvidence } from './demo/demo-evidence.js';
import { DEMO_SEED, seedDemoDirectory } from './demo/seed-directory.js';

export async function startDirectoryFromEnvironment(env: NodeJS.ProcessEnv = process.env): Promise<{ directory: Directory; lines: string[] }> {
  const settings = readDirectoryEnvironment(env);
  const collector = tuneCollectorForServing(settings.heapGrowingPercent);
  const directory = await buildDirectory({
    dataDir: settings.dataDir,
    databaseUrl: settings.databaseUrl,
    baseUrl: settings.baseUrl,
    allowLocalInboxes: settings.allowLocalInboxes,
    logLevel: settings.logLevel,
    checks: settings.checks,
    // The demo is loaded first, so the first snapshot the jobs run already has its receipts (startJobs below also starts the checks).
    runJobs: false,
    releaseHeapPages: true,
  });
  let seeded = 0;
  if (settings.seedDemo) {
    seeded = await seedDemoDirectory(directory.store, settings.demoListings, Date.now());
    await seedDemoEvidence(directory.context, directory.snapshots, DEMO_SEED, Date.now());
  }
  directory.startJobs();
  try {
    await listenOrExplain(directory.http, { host: settings.host, port: settings.port, service: 'directory', portSetting: 'DIRECTORY_PORT', hostSetting: 'DIRECTORY_HOST' });
  } catch (error) {
    await directory.close();
    throw error;
  }
  const base = settings.baseUrl;
  const lines = [
    `Directory network running at ${base}${seeded > 0 ? ` (${seeded} demo listings loaded)` : ''}`,
    `  database         ${describeStorage(storageTarget(settings.databaseUrl, join(settings.dataDir, 'directory.sqlite'), 'DIRECTORY_DATABASE_URL'))}`,
    `  search           ${base}/v1/businesses?q=cafe&open_now=true   ${base}/v1/businesses?near=38.72,-9.14&radius_km=5`,
    `  one business     ${base}/v1/businesses/{domain}`,
    `  categories       ${base}/v1/categories   attributes ${base}/v1/attributes   ranking rules ${base}/v1/ranking`,
    `  stats            ${base}/v1/stats   OpenAPI ${base}/openapi.json`,
    `  MCP              ${base}/mcp (every public read as a tool, and check_business)`,
    `  agentic check    POST ${base}/check {"url": "…"}   results ${base}/b/{domain}.json   ${base}/leaderboard.json   rules ${base}/v1/score-rules`,
    `  persons          POST ${base}/v1/persons, /v1/presentations (signed by member inboxes), /v1/passes (a person's key)`,
    `  mail             ${directory.mailer.describe} (DIRECTORY_SMTP_URL, DIRECTORY_MAIL_FROM)`,
  ];
  if (settings.heapGrowingPercent !== null) lines.push(`  memory           ${collectorLine(settings.heapGrowingPercent, collector)}`);
  return { directory, lines };
}

/** What became of DIRECTORY_HEAP_GROWING_PERCENT, for the start's lines: an operator sees whether it holds on this Node. */
function collectorLine(asked: number, collector: CollectorSetting): string {
  if (collector.heapGrowingPercent !== null) return `a full garbage collection at ${collector.heapGrowingPercent}% over what is live (DIRECTORY_HEAP_GROWING_PERCENT)`;
  if (!collector.externalInHeapLimit) return `DIRECTORY_HEAP_GROWING_PERCENT=${asked} not used: this Node's V8 (or --no-external-memory-accounted-in-global-limit) keeps its own bound`;
  return `DIRECTORY_HEAP_GROWING_PERCENT=${asked} not used: --heap-growing-percent on the command line holds`;
}
