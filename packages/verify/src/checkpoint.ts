/**
 * Checkpoints as C2SP tlog-checkpoint writes them: the log's origin, its size in decimal, its root
 * hash in base64, each on its own line, then any extension lines; signed as a note (note.ts).
 */
import { HASH_BYTES } from './merkle.js';
import { NoteError } from './note.js';

export interface Checkpoint {
  origin: string;
  size: number;
  root: Buffer;
  extensions: string[];
}

export function checkpointText(checkpoint: Checkpoint): string {
  return `${checkpoint.origin}\n${checkpoint.size}\n${checkpoint.root.toString('base64')}\n${checkpoint.extensions.map((line) => `${line}\n`).join('')}`;
}

export function parseCheckpoint(text: string): Checkpoint {
  const lines = text.split('\n');
  if (lines.pop() !== '') throw new NoteError('a checkpoint ends with a newline');
  const [origin, size, root, ...extensions] = lines;
  if (!origin || size === undefined || root === undefined) throw new NoteError('a checkpoint has an origin, a size and a root hash');
  if (!/^(0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size))) throw new NoteError(`not a tree size: ${JSON.stringify(size)}`);
  const hash = Buffer.from(root, 'base64');
  if (hash.length !== HASH_BYTES || hash.toString('base64') !== root) throw new NoteError('the root hash is not 32 bytes in base64');
  return { origin, size: Number(size), root: hash, extensions };
}
