/**
 * @svc/verify's pure functions against what they implement: Merkle roots against the RFC 9162
 * definition computed naively, every inclusion proof of trees of 1 to 70 leaves checked by
 * @sigstore/verify (which the project does not use to make them), every consistency proof by the
 * tests' own checker (packages/directory/test/support/rfc9162-check.ts), tampered proofs refused;
 * signed notes and checkpoints (a checkpoint @sigstore/verify accepts, an altered one refused); tile
 * paths as C2SP tlog-tiles writes them; order leaves and statements read back exactly.
 */
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { verifyCheckpoint } from '@sigstore/verify/dist/tlog/checkpoint.js';
import { verifyMerkleInclusion } from '@sigstore/verify/dist/tlog/merkle.js';
import { describe, expect, it } from 'vitest';
import { consistent } from '../../directory/test/support/rfc9162-check.js';
import {
  arraySource,
  checkpointText,
  consistencyProof,
  decodeDataTile,
  doorPlacement,
  ed25519KeyId,
  encodeEntry,
  parseEntry,
  siteOf,
  ed25519NoteSigner,
  encodeDataTile,
  inclusionProof,
  leafHash,
  noteVerifier,
  openNote,
  orderLeafText,
  parseCheckpoint,
  parseOrderLeaf,
  parseStatement,
  parseTilePath,
  prefixedLeafHash,
  rawEd25519PublicKey,
  signNote,
  statementText,
  tilePath,
  treeRoot,
  verifyConsistency,
  verifyInclusion,
  vkeyOf,
} from '../src/index.js';

const sha = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** MTH as RFC 9162 §2.1.1 writes it, recursively over the entries themselves. */
function naiveRoot(entries: Buffer[]): Buffer {
  if (entries.length === 0) return sha();
  if (entries.length === 1) return sha(Buffer.from([0]), entries[0] as Buffer);
  let k = 1;
  while (k * 2 < entries.length) k *= 2;
  return sha(Buffer.from([1]), naiveRoot(entries.slice(0, k)), naiveRoot(entries.slice(k)));
}

const entries = Array.from({ length: 70 }, (_, i) => Buffer.from(`entry ${i}`));

describe('Merkle trees (RFC 9162)', () => {
  it('hashes a leaf given as text as its UTF-8 bytes, the same as given as bytes', () => {
    for (const text of ['', 'svc-order/1 pos=1 id=a domain=café.example', 'snow ☃ and \u0000 inside', '𝄞 beyond the first plane']) {
      const bytes = Buffer.from(text, 'utf8');
      expect(leafHash(text).equals(sha(Buffer.from([0]), bytes)), text).toBe(true);
      expect(leafHash(bytes).equals(sha(Buffer.from([0]), bytes)), text).toBe(true);
      expect(prefixedLeafHash(Buffer.concat([Buffer.from([0]), bytes])).equals(leafHash(text)), text).toBe(true);
    }
    expect(() => prefixedLeafHash(Buffer.from('no prefix'))).toThrow(/must begin with 0x00/);
  });

  it('roots equal the definition for every size from 0 to 70', () => {
    for (let n = 0; n <= 70; n++) expect(treeRoot(arraySource(entries.slice(0, n).map((e) => leafHash(e))), n).equals(naiveRoot(entries.slice(0, n))), `size ${n}`).toBe(true);
  });

  it('every inclusion proof verifies here and in @sigstore/verify; a wrong leaf, index or root does not', () => {
    for (let n = 1; n <= 70; n++) {
      const src = arraySource(entries.slice(0, n).map((e) => leafHash(e)));
      const root = treeRoot(src, n);
      for (let i = 0; i < n; i++) {
        const proof = inclusionProof(src, i, n);
        expect(verifyInclusion(leafHash(entries[i] as Buffer), i, n, proof, root)).toBe(true);
        const tlogEntry = { canonicalizedBody: entries[i], inclusionProof: { logIndex: String(i), hashes: proof } };
        expect(() => verifyMerkleInclusion(tlogEntry as never, { logSize: BigInt(n), logHash: root } as never)).not.toThrow();
        if (n > 1) {
          expect(verifyInclusion(leafHash(entries[(i + 1) % n] as Buffer), i, n, proof, root)).toBe(false);
          expect(verifyInclusion(leafHash(entries[i] as Buffer), (i + 1) % n, n, proof, root)).toBe(false);
          expect(() => verifyMerkleInclusion({ ...tlogEntry, canonicalizedBody: entries[(i + 1) % n] } as never, { logSize: BigInt(n), logHash: root } as never)).toThrow();
        }
        expect(verifyInclusion(leafHash(entries[i] as Buffer), i, n, proof, leafHash('other'))).toBe(false);
      }
    }
  });

  it('every consistency proof verifies here and in the tests\' own checker; against another root it does not', () => {
    for (let n = 1; n <= 70; n++) {
      const src = arraySource(entries.slice(0, n).map((e) => leafHash(e)));
      const second = treeRoot(src, n);
      for (let m = 1; m <= n; m++) {
        const proof = consistencyProof(src, m, n);
        const first = treeRoot(src, m);
        expect(verifyConsistency(m, n, proof, first, second), `${m}→${n}`).toBe(true);
        expect(consistent(m, n, proof, first, second), `${m}→${n}`).toBe(true);
        if (m < n) {
          expect(verifyConsistency(m, n, proof, leafHash('forged'), second)).toBe(false);
          expect(consistent(m, n, proof, leafHash('forged'), second)).toBe(false);
          // A rewritten history: the same sizes over other entries.
          const forked = arraySource([...entries.slice(0, m - 1), Buffer.from('changed'), ...entries.slice(m, n)].map((e) => leafHash(e)));
          expect(verifyConsistency(m, n, consistencyProof(forked, m, n), first, treeRoot(forked, n))).toBe(false);
        }
      }
    }
  });
});

describe('signed notes and checkpoints (C2SP)', () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const name = 'network.example/v1/log';
  const signer = ed25519NoteSigner(name, privateKey);
  const raw = rawEd25519PublicKey(createPublicKey(privateKey));
  const vkey = vkeyOf(name, raw);

  it('signs a checkpoint that @sigstore/verify accepts, and opens it with the vkey', () => {
    const root = treeRoot(arraySource(entries.slice(0, 5).map((e) => leafHash(e))), 5);
    const note = signNote(checkpointText({ origin: name, size: 5, root, extensions: [] }), [signer]);
    const authority = { logID: ed25519KeyId(name, raw), publicKey: createPublicKey(privateKey), baseURL: `https://${name}`, validFor: { start: new Date(0), end: new Date(8.64e15) } };
    const checked = verifyCheckpoint({ inclusionProof: { checkpoint: { envelope: note } } } as never, [authority as never]);
    expect(Number(checked.logSize)).toBe(5);
    expect(Buffer.from(checked.logHash).equals(root)).toBe(true);
    const opened = openNote(note, [noteVerifier(vkey)]);
    expect(parseCheckpoint(opened.text)).toEqual({ origin: name, size: 5, root, extensions: [] });
    // Altered after signing, or signed by another key of the same name: refused.
    expect(() => openNote(note.replace('\n5\n', '\n6\n'), [noteVerifier(vkey)])).toThrow(/does not verify/);
    const other = ed25519NoteSigner(name, generateKeyPairSync('ed25519').privateKey);
    expect(() => openNote(signNote('x\n', [other]), [noteVerifier(vkey)])).toThrow(/no known key/);
    expect(() => verifyCheckpoint({ inclusionProof: { checkpoint: { envelope: note.replace('\n5\n', '\n6\n') } } } as never, [authority as never])).toThrow();
  });

  it('refuses texts a note cannot hold and vkeys whose id does not match', () => {
    expect(() => signNote('no newline', [signer])).toThrow();
    expect(() => signNote('a\n\nb\n', [signer])).toThrow();
    expect(() => noteVerifier(vkey.replace(/\+[0-9a-f]{8}\+/, '+00000000+'))).toThrow(/ID/);
  });
});

describe('tiles, leaves and statements', () => {
  it('names tiles as tlog-tiles does, one spelling each', () => {
    expect(tilePath({ level: 0, index: 1234067, width: 256 })).toBe('tile/0/x001/x234/067');
    expect(tilePath({ level: 'entries', index: 5, width: 7 })).toBe('tile/entries/005.p/7');
    expect(parseTilePath('0/x001/x234/067')).toEqual({ level: 0, index: 1234067, width: 256 });
    expect(parseTilePath('entries/005.p/7')).toEqual({ level: 'entries', index: 5, width: 7 });
    for (const bad of ['0/5', '0/x000/005', '0/005.p/256', '0/005.p/0', 'x/005', '0/x01/005']) expect(parseTilePath(bad), bad).toBeNull();
    expect(decodeDataTile(encodeDataTile([Buffer.from('a'), Buffer.from(''), Buffer.from('ccc')])).map(String)).toEqual(['a', '', 'ccc']);
  });

  it('reads back what it writes, and only that', () => {
    const leaf = { pos: 3, id: '01ABC', domain: 'salon.example', member: true, answering: true, reach: 1 as const, level: 3, tier: 'building' as const, score: 5234 };
    expect(parseOrderLeaf(orderLeafText(leaf))).toEqual(leaf);
    expect(() => parseOrderLeaf(orderLeafText(leaf).replace('score=5234', 'score=05234'))).toThrow();
    const statement = { origin: 'network.example/v1/orders', hour: Date.parse('2027-02-27T01:00:00Z'), rules: 7, shuffleDay: '2027-02-27', night: Date.parse('2027-02-27T00:00:00Z'), logSize: 80, logRoot: leafHash('a'), checks: { from: 91, to: 93 }, orderSize: 9, orderRoot: leafHash('b') };
    expect(statementText(statement).split('\n')[6]).toBe('checks 91 93');
    expect(parseStatement(statementText(statement))).toEqual(statement);
    expect(parseStatement(statementText({ ...statement, night: null }))).toMatchObject({ night: null });
    // A statement made before checks were logged has no such line, and reads as such.
    expect(statementText({ ...statement, checks: null }).split('\n')).toHaveLength(8);
    expect(parseStatement(statementText({ ...statement, checks: null }))).toMatchObject({ checks: null });
    expect(() => parseStatement(statementText(statement).replace('checks 91 93', 'checks 93 91'))).toThrow();
    expect(() => parseStatement(statementText(statement).replace('checks 91 93', 'checks 91'))).toThrow();
  });

  it('writes a check entry in one form, names the site by a hash, and places its doors as rules 7 reads them', () => {
    const entry = {
      v: 1 as const,
      kind: 'check' as const,
      at: 1_800_000_000_000,
      site: siteOf('Padaria.example'),
      listing: '01HZX',
      doors: [
        { type: 'inbox', level: 'payable' as const, status: 'live' as const },
        { type: 'mcp', level: 'bookable' as const, status: 'live' as const },
        { type: 'a2a', level: 'payable' as const, status: 'failing' as const },
      ],
    };
    const text = encodeEntry(entry);
    expect(text).toBe(`{"v":1,"kind":"check","at":1800000000000,"site":"${siteOf('padaria.example')}","listing":"01HZX","doors":[{"type":"inbox","level":"payable","status":"live"},{"type":"mcp","level":"bookable","status":"live"},{"type":"a2a","level":"payable","status":"failing"}]}`);
    expect(text).not.toContain('padaria');
    expect(parseEntry(text)).toEqual(entry);
    expect(parseEntry(encodeEntry({ ...entry, listing: null, doors: [] }))).toMatchObject({ listing: null, doors: [] });
    for (const bad of [text.replace('"bookable"', '"great"'), text.replace('"failing"', '"gone"'), text.replace('"listing":"01HZX"', '"listing":5'), text.replace('{"type":"mcp",', '{"kind":"mcp",')]) expect(() => parseEntry(bad), bad).toThrow();
    // The best live door's level (a failing one counts for nothing); an inbox is no agent door.
    expect(doorPlacement(entry.doors)).toEqual({ level: 4, agentDoor: true });
    expect(doorPlacement([entry.doors[0] as never])).toEqual({ level: 4, agentDoor: false });
    expect(doorPlacement([{ type: 'openapi', level: 'readable', status: 'live' }])).toEqual({ level: 1, agentDoor: false });
    expect(doorPlacement([{ type: 'mcp', level: 'askable', status: 'failing' }])).toEqual({ level: 0, agentDoor: false });
  });
});
