#!/usr/bin/env node
/**
 * svc-verify <network URL> [hour] [--page <path or URL>]... [--receipts <file>] [--checkpoint <file>]...
 *            [--state <file>] [--key <vkey>] [--json]
 *
 * Recomputes a directory network's hour: every reputation from its evidence log, the order from its
 * published rules, and the pages given. Exit 0 when everything matches, 1 at the first difference,
 * 2 when it could not check (the network unreachable, an unknown rules version, bad arguments).
 */
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { verifyNetwork, type VerifyReport } from './verifier.js';

const USAGE = `usage: svc-verify <network URL> [hour YYYY-MM-DDTHH, UTC; default: now]
  --page <path|URL>     a search page to check against the hour's order (repeatable)
  --receipts <file>     receipts (compact JWS, one a line) that must be in the log
  --checkpoint <file>   a signed head of the log seen elsewhere (repeatable)
  --state <file>        keep the last head verified here, and check the next run against it
  --key <vkey>          the network's key (name+keyid+key); otherwise the one it publishes
  --json                print the report as JSON`;

export async function main(argv: readonly string[], out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<number> {
  const positional: string[] = [];
  const pages: string[] = [];
  const checkpoints: string[] = [];
  let receiptsFile: string | undefined;
  let stateFile: string | undefined;
  let key: string | undefined;
  let asJson = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--page') pages.push(value());
    else if (arg === '--receipts') receiptsFile = value();
    else if (arg === '--checkpoint') checkpoints.push(readFileSync(value(), 'utf8'));
    else if (arg === '--state') stateFile = value();
    else if (arg === '--key') key = value();
    else if (arg === '--json') asJson = true;
    else if (arg === '--help' || arg === '-h') {
      out(USAGE);
      return 0;
    } else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}\n${USAGE}`);
    else positional.push(arg);
  }
  const [network, hour] = positional;
  if (!network || positional.length > 2) throw new Error(USAGE);
  if (stateFile && existsSync(stateFile)) checkpoints.push(readFileSync(stateFile, 'utf8'));
  const receipts = receiptsFile ? readFileSync(receiptsFile, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean) : [];
  const report = await verifyNetwork({
    network,
    ...(hour ? { hour } : {}),
    pages,
    checkpoints,
    receipts,
    ...(key ? { key } : {}),
    progress: asJson ? () => {} : out,
  });
  if (report.ok && stateFile && report.checkpointNote) writeFileSync(stateFile, report.checkpointNote);
  if (asJson) out(JSON.stringify(report, null, 2));
  else out(summary(report));
  return report.ok ? 0 : 1;
}

function summary(report: VerifyReport): string {
  const c = report.counts;
  const lines = [
    `${report.ok ? 'OK' : 'DIFFERENCE'}: ${report.network}${report.statement ? ` hour ${new Date(report.statement.hour).toISOString().slice(0, 13)}` : ''}`,
    `  log: ${c.entries} entries (${c.receipts} receipts, ${c.acknowledgements} acknowledgements, ${c.members} members scored); ${c.checkpoints} other heads compared`,
    `  order: ${c.leaves} places (${c.checked_places} placed by a check recomputed from ${c.checks} check entries); ${c.pages} pages with ${c.listings} listings checked; ${c.receipts_found} receipts found in the log`,
  ];
  const tiers = { new: 0, building: 0, trusted: 0 };
  for (const r of report.reputations) tiers[r.tier] += 1;
  lines.push(`  reputations recomputed: ${report.reputations.length} (trusted ${tiers.trusted}, building ${tiers.building}, new ${tiers.new})`);
  if (report.difference) lines.push(`  first difference (${report.difference.check}): ${report.difference.detail}`);
  return lines.join('\n');
}

/** Run as a command (also through npx's link to it), not imported. */
const invokedDirectly = (() => {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`svc-verify: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(2);
    },
  );
}
