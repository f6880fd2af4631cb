/**
 * The hour's order and every reputation, provable from signed public evidence (issue 39,
 * docs/verifiable-order.md), against an honest network over HTTP: the evidence log holds every
 * counted receipt, acknowledgement and member in the order they arrived; its signed head, tiles and
 * proofs are checked by implementations the directory does not use to make them (@sigstore/verify for
 * inclusion proofs and checkpoint signatures, ./support/rfc9162-check.ts written from the RFC's
 * algorithm for consistency proofs); the hour's statement names the night's prefix of the log; and
 * the verifier recomputes every reputation and the whole order and finds no difference. Bad input is
 * refused with problem documents; the log cannot be changed in place.
 */
import { createPublicKey } from 'node:crypto';
import { verifyCheckpoint } from '@sigstore/verify/dist/tlog/checkpoint.js';
import { verifyMerkleInclusion } from '@sigstore/verify/dist/tlog/merkle.js';
import { decodeDataTile, ed25519PublicKeyOfVkey, ed25519KeyId, parseCheckpoint, parseStatement, tilePath, verifyNetwork, leafHash } from '@svc/verify';
import { rawRows } from '../../../test-support/test-database.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSignedInboxes } from './support/signed-inbox.js';
import { evidenceScene, type EvidenceScene } from './support/evidence-scene.js';
import { consistent } from './support/rfc9162-check.js';

let s: EvidenceScene;

beforeAll(async () => {
  // Every order's tree hashed on a worker thread, as a large directory's is (verifier-catches-liars
  // checks the hours hashed on the node's own thread).
  s = await evidenceScene({ orderTreeWorkerFrom: 1 });
  await s.nextNight();
}, 180_000);
afterAll(async () => {
  await s.t.close();
  await closeSignedInboxes();
});

const text = async (path: string) => {
  const r = await fetch(`${s.t.baseUrl}${path}`);
  return { status: r.status, headers: r.headers, body: Buffer.from(await r.arrayBuffer()) };
};

async function head() {
  const r = await text('/v1/log/checkpoint');
  return { note: r.body.toString('utf8'), ...parseCheckpoint(r.body.toString('utf8').split('\n\n')[0] + '\n') };
}

describe('the evidence log', () => {
  it('holds the members, every counted receipt and acknowledgement in the order they arrived, times never falling', async () => {
    const { size } = await head();
    // 3 members, 50 receipts, 25 acknowledgements, and the nights begun: the one the directory found at
    // its start (before the members), the one the clock moved to, and the one the order reads.
    expect(size).toBe(3 + 50 + 25 + 3);
    const entries = [];
    for (let i = 0; i < size; i++) entries.push((await s.t.get(`/v1/log/entries/${i}`)).body);
    expect(entries.filter((e) => e.kind === 'member')).toHaveLength(3);
    expect(entries.filter((e) => e.kind === 'receipt')).toHaveLength(50);
    expect(entries.filter((e) => e.kind === 'ack')).toHaveLength(25);
    expect(entries.map((e) => Date.parse(e.at))).toEqual([...entries.map((e) => Date.parse(e.at))].sort((a, b) => a - b));
    // Every receipt published is there byte for byte; no acknowledgement shows its agent's key.
    const logged = new Set(entries.filter((e) => e.kind === 'receipt').map((e) => JSON.parse(e.entry).jws));
    for (const jws of [...s.published.values()].flat()) expect(logged.has(jws)).toBe(true);
    for (const e of entries.filter((x) => x.kind === 'ack')) expect(Object.keys(JSON.parse(e.entry))).toEqual(['v', 'kind', 'at', 'iss', 'receipt_id', 'ack_sha256']);
    // Each entry's leaf hash is SHA-256(0x00 || its bytes).
    for (const e of entries) expect(e.leaf_hash).toBe(leafHash(e.entry).toString('base64'));
  });

  it('signs its head as a C2SP checkpoint that @sigstore/verify accepts, and proves each entry with proofs it accepts', async () => {
    const cp = await head();
    const key = (await s.t.get('/v1/log/key')).body;
    const raw = ed25519PublicKeyOfVkey(key.vkey);
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
    const authority = { logID: ed25519KeyId(key.name, raw), publicKey, baseURL: `https://${key.name}`, validFor: { start: new Date(0), end: new Date(8.64e15) } };
    for (const index of [0, 1, 7, Math.floor(cp.size / 2), cp.size - 1]) {
      const proof = (await s.t.get(`/v1/log/proof/inclusion?index=${index}&size=${cp.size}`)).body;
      const entry = (await s.t.get(`/v1/log/entries/${index}`)).body;
      const tlogEntry = {
        canonicalizedBody: Buffer.from(entry.entry, 'utf8'),
        inclusionProof: { logIndex: String(index), treeSize: String(cp.size), rootHash: cp.root, hashes: proof.proof.map((h: string) => Buffer.from(h, 'base64')), checkpoint: { envelope: cp.note } },
      };
      const checked = verifyCheckpoint(tlogEntry as never, [authority as never]);
      expect(Number(checked.logSize)).toBe(cp.size);
      expect(() => verifyMerkleInclusion(tlogEntry as never, checked)).not.toThrow();
      // The same proof for another entry's bytes is refused.
      expect(() => verifyMerkleInclusion({ ...tlogEntry, canonicalizedBody: Buffer.from(`${entry.entry} `) } as never, checked)).toThrow();
    }
    // A head altered after signing is refused.
    expect(() => verifyCheckpoint({ inclusionProof: { checkpoint: { envelope: cp.note.replace(`\n${cp.size}\n`, `\n${cp.size + 1}\n`) } } } as never, [authority as never])).toThrow();
  });

  it('proves every earlier head consistent with the latest, as RFC 9162 checks it', async () => {
    const { size, root } = await head();
    for (const first of [1, 2, 3, 5, 8, 13, 40, size - 1, size]) {
      const from = (await s.t.get(`/v1/log/proof/consistency?from=${first}&to=${size}`)).body;
      const firstRoot = await s.t.directory.order.tree.root(first);
      expect(consistent(first, size, from.proof.map((h: string) => Buffer.from(h, 'base64')), firstRoot, root), `from ${first}`).toBe(true);
      // Against another first root the same proof fails.
      expect(consistent(first, size, from.proof.map((h: string) => Buffer.from(h, 'base64')), leafHash('x'), root)).toBe(false);
    }
  });

  it('serves its entries and hashes as tiles, each path naming the same bytes forever', async () => {
    const { size } = await head();
    const tile = await text(`/v1/log/${tilePath({ level: 'entries', index: 0, width: size })}`);
    expect(tile.status).toBe(200);
    expect(tile.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const entries = decodeDataTile(tile.body);
    expect(entries).toHaveLength(size);
    const hashes = await text(`/v1/log/${tilePath({ level: 0, index: 0, width: size })}`);
    expect(hashes.body.length).toBe(32 * size);
    expect(hashes.body.subarray(0, 32).equals(leafHash(entries[0] as Buffer))).toBe(true);
    // A whole tile the log does not have yet, a partial tile wider than the log, and no tile at all.
    expect((await s.t.get('/v1/log/tile/entries/000')).status).toBe(404);
    expect((await s.t.get(`/v1/log/tile/entries/000.p/${size + 1}`)).status).toBe(404);
    const bad = await s.t.get('/v1/log/tile/entries/0');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });

  it('refuses bad input with problem documents: sizes out of range, an unknown size, a bad hour', async () => {
    const { size } = await head();
    const cases: [string, number, string][] = [
      [`/v1/log/proof/inclusion?index=${size}&size=${size}`, 400, 'bad_request'],
      [`/v1/log/proof/inclusion?index=0&size=${size + 1000}`, 404, 'not_found'],
      [`/v1/log/proof/consistency?from=${size}&to=2`, 400, 'bad_request'],
      [`/v1/log/proof/consistency?from=1&to=${size + 1}`, 404, 'not_found'],
      ['/v1/log/proof/inclusion?index=-1&size=3', 400, 'bad_request'],
      ['/v1/log/entries/99999', 404, 'not_found'],
      ['/v1/orders/2027-02-27T1', 400, 'bad_request'],
      ['/v1/orders/2027-02-27T01:30:00Z', 400, 'bad_request'],
      ['/v1/orders/2031-01-01T00', 404, 'not_found'],
      [`/v1/orders/${new Date(s.hour).toISOString().slice(0, 13)}/proof?position=99999`, 400, 'bad_request'],
      ['/v1/log/lookup?iss=http%3A%2F%2F127.0.0.1%3A1&receipt_id=00000000000000000000000000000000', 404, 'not_found'],
    ];
    for (const [path, status, code] of cases) {
      const r = await s.t.get(path);
      expect(r.status, path).toBe(status);
      expect(r.headers.get('content-type'), path).toMatch(/application\/problem\+json/);
      expect(r.body.code, path).toBe(code);
    }
  });

  it('is append-only in the database itself: no update or delete of an entry goes through', async () => {
    await expect(rawRows('directory', s.t.dataDir, "UPDATE evidence_log SET entry = 'x' WHERE idx = 0")).rejects.toThrow(/append-only/);
    await expect(rawRows('directory', s.t.dataDir, 'DELETE FROM evidence_log WHERE idx = 0')).rejects.toThrow(/append-only/);
    const first = await s.t.get('/v1/log/entries/0');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.kind).toBe('night');
  });
});

describe('the hour\'s statement and the verifier', () => {
  it('states the rules, the shuffle\'s day, the night and its prefix of the log, and the order\'s root, signed', async () => {
    const hour = new Date(s.hour).toISOString().slice(0, 13);
    const r = await s.t.get(`/v1/orders/${hour}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const st = parseStatement(r.body.note.split('\n\n')[0] + '\n');
    expect(st).toMatchObject({ hour: s.hour, rules: 7, shuffleDay: '2027-02-27', night: Date.parse('2027-02-27T00:00:00Z'), orderSize: 6 + 3 });
    // The night's prefix: everything but the night's own entry.
    expect(st.logSize).toBe(3 + 50 + 25 + 2);
    expect(r.body).toMatchObject({ rules: 7, log: { size: st.logSize }, order: { size: 9 } });
  });

  it('recomputes every reputation and the whole order from the public evidence and finds no difference', async () => {
    const report = await verifyNetwork({ network: s.t.publicUrl, hour: s.hour, fetch: s.fetch, now: () => s.clock.now(), pages: ['/v1/businesses?source=member', '/v1/businesses?limit=3'], receipts: [...s.published.values()].flat() });
    expect(report.difference).toBeNull();
    expect(report.ok).toBe(true);
    const byDomain = new Map(report.reputations.map((r) => [r.domain, r]));
    // The worked examples of docs/reputation.md, recomputed from the log alone.
    expect(byDomain.get(s.strong.domain)).toMatchObject({ score: 0.924108, tier: 'trusted', kept: 20, customers: 20 });
    expect(byDomain.get(s.weak.domain)).toMatchObject({ score: 0.286826, tier: 'new', kept: 4, broken: 1 });
    expect(byDomain.get(s.quiet.domain)).toMatchObject({ score: 0, tier: 'new' });
    expect(report.counts).toMatchObject({ receipts: 50, acknowledgements: 25, members: 3, leaves: 9, receipts_found: 50 });
    expect(report.counts.listings).toBeGreaterThan(0);
  });

  it('gives each place\'s leaf with a proof under the statement\'s root', async () => {
    const hour = new Date(s.hour).toISOString().slice(0, 13);
    const st = (await s.t.get(`/v1/orders/${hour}`)).body;
    const leaves = (await s.t.get(`/v1/orders/${hour}/leaves?start=0&count=100`)).body.leaves as string[];
    expect(leaves).toHaveLength(9);
    expect(leaves[0]).toBe(`svc-order/1 pos=1 id=${(await s.t.get(`/v1/businesses/${encodeURIComponent(s.strong.domain)}`)).body.id} domain=${s.strong.domain} member=1 answering=1 reach=1 level=3 tier=trusted score=9241`);
    for (let position = 1; position <= 9; position++) {
      const p = (await s.t.get(`/v1/orders/${hour}/proof?position=${position}`)).body;
      expect(p.leaf).toBe(leaves[position - 1]);
      const tlogEntry = { canonicalizedBody: Buffer.from(p.leaf, 'utf8'), inclusionProof: { logIndex: String(position - 1), hashes: p.proof.map((h: string) => Buffer.from(h, 'base64')) } };
      expect(() => verifyMerkleInclusion(tlogEntry as never, { logSize: BigInt(9), logHash: Buffer.from(st.order.root, 'base64') } as never)).not.toThrow();
    }
  });

  it('finds an inbox\'s receipt in the log by its issuer and id', async () => {
    const [first] = s.published.get(s.strong.domain) ?? [];
    const id = JSON.parse(Buffer.from((first as string).split('.')[1] as string, 'base64url').toString()).nonce;
    const r = await s.t.get(`/v1/log/lookup?iss=${encodeURIComponent(s.strong.origin)}&receipt_id=${id}`);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body.receipt.entry).jws).toBe(first);
    expect(r.body.acknowledgement).toBeNull();
  });

  it('keeps the proofs out of the MCP door and documents every new route in the OpenAPI document', async () => {
    const doc = (await s.t.get('/openapi.json')).body;
    for (const path of ['/v1/log/key', '/v1/log/checkpoint', '/v1/log/tile/{tile}', '/v1/log/entries/{index}', '/v1/log/lookup', '/v1/log/proof/inclusion', '/v1/log/proof/consistency', '/v1/orders/{hour}', '/v1/orders/{hour}/leaves', '/v1/orders/{hour}/proof']) {
      expect(doc.paths[path]?.get, path).toBeDefined();
    }
  });
});

describe('the verifier as a command anyone can run', () => {
  it('works from its packed package (npm pack, installed alone), and says OK or the difference with its exit status', async () => {
    const { execFile, execFileSync } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const { mkdtempSync, readdirSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    // The network answers from this process: the command runs beside it, never blocking it.
    const run = async (file: string, args: string[]) => {
      try {
        const { stdout } = await promisify(execFile)(file, args, { encoding: 'utf8' });
        return { status: 0, stdout };
      } catch (error) {
        return { status: (error as { code: number }).code, stdout: String((error as { stdout: string }).stdout) };
      }
    };
    const dir = mkdtempSync(join(tmpdir(), 'svc-verify-pack-'));
    try {
      execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: join(import.meta.dirname, '../../verify') });
      const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz')) as string;
      writeFileSync(join(dir, 'package.json'), '{"name":"checker","private":true}');
      execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', join(dir, tarball)], { cwd: dir });
      const bin = join(dir, 'node_modules', '.bin', 'svc-verify');
      const hour = new Date(s.hour).toISOString().slice(0, 13);
      // The network's answers are those of the hour verified (the test's clock), so the hour is named.
      const ok = await run(bin, [s.t.baseUrl, hour]);
      expect(ok.status, ok.stdout).toBe(0);
      expect(ok.stdout).toMatch(/^OK: /m);
      expect(ok.stdout).toMatch(/reputations recomputed: 3 \(trusted 1, building 0, new 2\)/);
      // A head of another log given as seen elsewhere: exit 1, the difference said.
      const forged = join(dir, 'other-head.txt');
      writeFileSync(forged, (await fetch(`${s.t.baseUrl}/v1/log/checkpoint`).then((r) => r.text())).replace(/\n[A-Za-z0-9+/]{43}=\n/, `\n${leafHash('forged').toString('base64')}\n`));
      const differs = await run(bin, [s.t.baseUrl, hour, '--checkpoint', forged]);
      expect(differs.status).toBe(1);
      expect(differs.stdout).toMatch(/first difference \(signature\)/);
      // Nothing to check: exit 2.
      expect((await run(bin, ['http://127.0.0.1:1', hour])).status).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('after a restart', () => {
  it('the same log, key and statements: the head signed before is consistent with the one after, and the hour verifies again', async () => {
    const before = await head();
    const { startDirectory } = await import('./support/harness.js');
    await s.t.close({ removeData: false });
    s.t = await startDirectory({ clock: s.clock, dataDir: s.t.dataDir, allowLocalInboxes: true, answerWorkers: 0 });
    s.fetch = (await import('./support/evidence-scene.js')).fetchVia(s.t);
    // A receipt after the restart: the log goes on from where it was, times never falling.
    await s.closePromise(s.quiet, 'after-restart', 'booking.completed');
    await s.t.directory.order.signHead();
    const report = await verifyNetwork({ network: s.t.publicUrl, hour: s.hour, fetch: s.fetch, now: () => s.clock.now(), checkpoints: [before.note] });
    expect(report.difference).toBeNull();
    expect(report.checkpoint?.size).toBe(before.size + 3);
  });
});
