/**
 * The receipt format on its own (packages/shared/src/receipts, docs/receipts.md): our compact JWS
 * against jose both ways, with the RFC 8037 A.1 key so signatures reproduce exactly, and every
 * refusal a reader gives, with its reason.
 */
import { createPrivateKey } from 'node:crypto';
import { CompactSign, compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  RECEIPT_ACK_TYP,
  RECEIPT_TYP,
  bindAcknowledgement,
  ed25519PublicJwk,
  generateEd25519Key,
  readAcknowledgement,
  receiptClaimsProblem,
  receiptSha256,
  signCompactJws,
  verifyReceipt,
  type Ed25519PrivateJwk,
} from '@svc/shared';

/** RFC 8037 Appendix A.1: the published Ed25519 key. */
const RFC8037_KEY: Ed25519PrivateJwk = {
  kty: 'OKP',
  crv: 'Ed25519',
  d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A',
  x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
};
const issuerPublic = ed25519PublicJwk(RFC8037_KEY);
const issuerKey = createPrivateKey({ key: { ...RFC8037_KEY }, format: 'jwk' });

const claims = {
  ver: 2,
  iss: 'https://inbox.example',
  sub: 'Qm9va2luZy1zdWJqZWN0LXBzZXVkb255bS0wMDAwMDA',
  itm: '01KAQ0000000000000000000AA',
  typ: 'booking',
  knd: 'confirmed',
  iat: 1_795_000_000,
  nonce: '0123456789abcdef0123456789abcdef',
  due: 1_795_086_400,
  end: 1_795_089_100,
  amt: 2500,
  cur: 'EUR',
  evt: 'booking.confirm',
};
const header = { alg: 'EdDSA', typ: RECEIPT_TYP, kid: issuerPublic.kid };
const lookup = (kid: string) => (kid === issuerPublic.kid ? issuerPublic : null);

describe('receipts: compact JWS and claims', () => {
  it('the RFC 8037 A.1 key has the RFC 7638 thumbprint the RFC gives', () => {
    expect(issuerPublic.kid).toBe('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
  });

  it('signs deterministically, and jose verifies what we sign', async () => {
    const jws = signCompactJws(header, claims, issuerKey);
    expect(signCompactJws(header, claims, issuerKey)).toBe(jws);
    const { payload, protectedHeader } = await compactVerify(jws, await importJWK(issuerPublic, 'EdDSA'));
    expect(protectedHeader).toEqual(header);
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual(claims);
    const ours = await verifyReceipt(jws, lookup);
    expect(ours).toMatchObject({ ok: true, kid: issuerPublic.kid, claims });
  });

  it('we verify what jose signs, under either algorithm name', async () => {
    for (const alg of ['EdDSA', 'Ed25519']) {
      const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
        .setProtectedHeader({ alg, typ: RECEIPT_TYP, kid: issuerPublic.kid })
        .sign(await importJWK(RFC8037_KEY, alg));
      expect(await verifyReceipt(jws, lookup)).toMatchObject({ ok: true });
    }
  });

  it('refuses each way a receipt can be wrong, naming why', async () => {
    const good = signCompactJws(header, claims, issuerKey);
    const [h, p, s] = good.split('.') as [string, string, string];
    const other = generateEd25519Key();
    const cases: [string, string][] = [
      ['two parts', `${h}.${p}`],
      ['payload not JSON', `${h}.${Buffer.from('nope').toString('base64url')}.${s}`],
      ['short signature', `${h}.${p}.${s.slice(2)}`],
    ];
    for (const [name, jws] of cases) expect((await verifyReceipt(jws, lookup)).ok === false && name).toBe(name);
    expect(await verifyReceipt(`${good}${'A'.repeat(5000)}`, lookup)).toMatchObject({ ok: false, reason: 'too_large' });
    expect(await verifyReceipt(signCompactJws({ ...header, typ: 'JWT' }, claims, issuerKey), lookup)).toMatchObject({ ok: false, reason: 'bad_typ' });
    const hs = `${Buffer.from(JSON.stringify({ ...header, alg: 'HS256' })).toString('base64url')}.${p}.${s}`;
    expect(await verifyReceipt(hs, lookup)).toMatchObject({ ok: false, reason: 'bad_alg' });
    expect(await verifyReceipt(signCompactJws({ ...header, kid: other.kid }, claims, issuerKey), lookup)).toMatchObject({ ok: false, reason: 'unknown_key' });
    const forged = signCompactJws(header, claims, createPrivateKey({ key: { ...other.privateJwk }, format: 'jwk' }));
    expect(await verifyReceipt(forged, lookup)).toMatchObject({ ok: false, reason: 'bad_signature' });
    const altered = `${h}.${Buffer.from(JSON.stringify({ ...claims, knd: 'paid' })).toString('base64url')}.${s}`;
    expect(await verifyReceipt(altered, lookup)).toMatchObject({ ok: false, reason: 'bad_signature' });
    const badClaims = signCompactJws(header, { ...claims, knd: 'outcome' }, issuerKey);
    expect(await verifyReceipt(badClaims, lookup)).toMatchObject({ ok: false, reason: 'bad_payload' });
  });

  it('checks claims: out and ref exactly on outcomes, end only on bookings', () => {
    expect(receiptClaimsProblem(claims)).toBeNull();
    const outcome = { ...claims, knd: 'outcome', out: 'booking.completed', ref: claims.nonce, nonce: 'f'.repeat(32), evt: 'booking.complete' };
    expect(receiptClaimsProblem(outcome)).toBeNull();
    expect(receiptClaimsProblem({ ...outcome, out: 'order.fulfilled' })).toMatch(/out/);
    expect(receiptClaimsProblem({ ...outcome, ref: undefined })).toMatch(/ref/);
    expect(receiptClaimsProblem({ ...claims, typ: 'order', evt: 'order.accept' })).toMatch(/end/);
    expect(receiptClaimsProblem({ ...claims, cur: undefined })).toMatch(/cur/);
    expect(receiptClaimsProblem({ ...claims, sub: undefined })).toMatch(/sub/);
  });
});

describe('receipts: acknowledgements', () => {
  const receiptJws = signCompactJws(header, claims, issuerKey);
  const receipt = { id: claims.nonce, sha256: receiptSha256(receiptJws) };

  async function ack(payload: Record<string, unknown>, options: { typ?: string; withPrivate?: boolean; alg?: string } = {}) {
    const agent = generateEd25519Key();
    const jwk = options.withPrivate ? agent.privateJwk : agent.publicJwk;
    const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: options.alg ?? 'EdDSA', typ: options.typ ?? RECEIPT_ACK_TYP, jwk: jwk as any })
      .sign(await importJWK(agent.privateJwk, 'EdDSA'));
    return { jws, agent };
  }

  it('reads an acknowledgement jose made, and binds it to the receipt', async () => {
    const now = claims.iat + 60;
    const { jws, agent } = await ack({ rcp: receipt.id, sha: receipt.sha256, iat: now });
    expect(decodeProtectedHeader(jws).typ).toBe(RECEIPT_ACK_TYP);
    const read = readAcknowledgement(jws);
    expect(read).toMatchObject({ ok: true, jkt: agent.kid, claims: { rcp: receipt.id, sha: receipt.sha256, iat: now } });
    if (!read.ok) throw new Error('unread');
    expect(bindAcknowledgement(read.claims, receipt, now)).toEqual({ ok: true });
    expect(bindAcknowledgement(read.claims, receipt, now + 3600)).toEqual({ ok: true });
    expect(bindAcknowledgement(read.claims, receipt, now + 3601)).toMatchObject({ ok: false, reason: 'stale' });
    expect(bindAcknowledgement(read.claims, receipt, now - 301)).toMatchObject({ ok: false, reason: 'not_yet' });
    expect(bindAcknowledgement(read.claims, { ...receipt, id: 'e'.repeat(32) }, now)).toMatchObject({ ok: false, reason: 'wrong_receipt' });
    expect(bindAcknowledgement(read.claims, { ...receipt, sha256: receiptSha256(`${receiptJws}x`) }, now)).toMatchObject({ ok: false, reason: 'wrong_receipt' });
  });

  it('refuses a wrong typ, a private key in the header, a bad signature and bad claims', async () => {
    const good = { rcp: receipt.id, sha: receipt.sha256, iat: claims.iat };
    expect(readAcknowledgement((await ack(good, { typ: RECEIPT_TYP })).jws)).toMatchObject({ ok: false, reason: 'bad_typ' });
    expect(readAcknowledgement((await ack(good, { withPrivate: true })).jws)).toMatchObject({ ok: false, reason: 'bad_key' });
    expect(readAcknowledgement((await ack({ ...good, rcp: 'RCP' })).jws)).toMatchObject({ ok: false, reason: 'bad_payload' });
    expect(readAcknowledgement((await ack({ ...good, iat: '1' })).jws)).toMatchObject({ ok: false, reason: 'bad_payload' });
    const { jws } = await ack(good);
    const [h, p, s] = jws.split('.') as [string, string, string];
    const swapped = `${h}.${Buffer.from(JSON.stringify({ ...good, iat: good.iat + 1 })).toString('base64url')}.${s}`;
    expect(readAcknowledgement(swapped)).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(readAcknowledgement(`${h}.${p}`)).toMatchObject({ ok: false, reason: 'malformed' });
    expect(readAcknowledgement(jws + 'A'.repeat(2048))).toMatchObject({ ok: false, reason: 'too_large' });
  });
});
