/**
 * The hour's statement (docs/verifiable-order.md): what the hour's order was made from and what it
 * came to, as a signed note. Its lines, in this order:
 *
 *   <host>/v1/orders
 *   hour <YYYY-MM-DDTHH:00:00Z>
 *   rules <version>
 *   shuffle <YYYY-MM-DD>
 *   night <YYYY-MM-DDT00:00:00Z, the scoring time of the reputation read> | night none
 *   log <size> <base64 root>      the evidence log's head the reputation was computed from
 *   checks <from> <to>            the log's size before and after the order read its listings: the
 *                                 doors of a checked listing are those of its newest check entry below
 *                                 some size in [from, to] (absent in statements made before it was written)
 *   order <count> <base64 root>   the Merkle root of the order's leaves (order.ts)
 */
import { HASH_BYTES } from './merkle.js';
import { NoteError } from './note.js';

export interface HourStatement {
  origin: string;
  /** Start of the hour, ms. */
  hour: number;
  rules: number;
  shuffleDay: string;
  /** Scoring time of the night whose reputation the order read, ms; null when no night was scored. */
  night: number | null;
  logSize: number;
  logRoot: Buffer;
  /** The log's size before and after the order read its listings; null in statements without the line. */
  checks: { from: number; to: number } | null;
  orderSize: number;
  orderRoot: Buffer;
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

export function statementText(s: HourStatement): string {
  return [
    s.origin,
    `hour ${iso(s.hour)}`,
    `rules ${s.rules}`,
    `shuffle ${s.shuffleDay}`,
    `night ${s.night === null ? 'none' : iso(s.night)}`,
    `log ${s.logSize} ${s.logRoot.toString('base64')}`,
    ...(s.checks ? [`checks ${s.checks.from} ${s.checks.to}`] : []),
    `order ${s.orderSize} ${s.orderRoot.toString('base64')}`,
    '',
  ].join('\n');
}

function hashOf(text: string | undefined): Buffer {
  const hash = Buffer.from(text ?? '', 'base64');
  if (hash.length !== HASH_BYTES || hash.toString('base64') !== text) throw new NoteError('a hash is 32 bytes in base64');
  return hash;
}

function count(text: string | undefined): number {
  if (!/^(0|[1-9][0-9]*)$/.test(text ?? '') || !Number.isSafeInteger(Number(text))) throw new NoteError(`not a count: ${text}`);
  return Number(text);
}

export function parseStatement(text: string): HourStatement {
  const lines = text.split('\n');
  if (lines.pop() !== '' || (lines.length !== 7 && lines.length !== 8)) throw new NoteError('an hour\'s statement has seven or eight lines');
  const split = lines.map((l) => l.split(' '));
  const checksLine = split.length === 8 ? split.splice(6, 1)[0] : undefined;
  const [origin, hour, rules, shuffle, night, log, order] = split as string[][];
  const field = (parts: string[] | undefined, name: string, n: number) => {
    if (!parts || parts[0] !== name || parts.length !== n + 1) throw new NoteError(`the statement's line ${name} is not as written`);
    return parts.slice(1);
  };
  const [hourText = ''] = field(hour, 'hour', 1);
  const hourMs = Date.parse(hourText);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:00:00Z$/.test(hourText) || Number.isNaN(hourMs)) throw new NoteError('hour is the start of an hour in UTC');
  const [nightText = ''] = field(night, 'night', 1);
  const nightMs = nightText === 'none' ? null : Date.parse(nightText);
  if (nightMs !== null && (!/^\d{4}-\d{2}-\d{2}T00:00:00Z$/.test(nightText) || Number.isNaN(nightMs))) throw new NoteError('night is a midnight in UTC, or none');
  const [shuffleDay = ''] = field(shuffle, 'shuffle', 1);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(shuffleDay)) throw new NoteError('shuffle is a date');
  const [logSize, logRoot] = field(log, 'log', 2);
  const [orderSize, orderRoot] = field(order, 'order', 2);
  const [checksFrom, checksTo] = checksLine ? field(checksLine, 'checks', 2) : [];
  const statement: HourStatement = {
    origin: (origin ?? []).join(' '),
    hour: hourMs,
    rules: count(field(rules, 'rules', 1)[0]),
    shuffleDay,
    night: nightMs,
    logSize: count(logSize),
    logRoot: hashOf(logRoot),
    checks: checksLine ? { from: count(checksFrom), to: count(checksTo) } : null,
    orderSize: count(orderSize),
    orderRoot: hashOf(orderRoot),
  };
  if (statement.checks && statement.checks.from > statement.checks.to) throw new NoteError('checks names a size and a size not below it');
  if (!statement.origin || statementText(statement) !== text) throw new NoteError('the statement is not in its one written form');
  return statement;
}
