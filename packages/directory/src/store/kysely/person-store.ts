/** The persons tables (migration 0012) in SQLite. */
import type { Kysely } from 'kysely';
import type { PassRecord, PersonKeyRecord, PersonRecord, PersonStore } from '../person-store.js';
import type { DirectoryDatabase } from './schema.js';

const n = (v: unknown) => Number(v);
const nn = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export class KyselyPersonStore implements PersonStore {
  readonly #db: Kysely<DirectoryDatabase>;
  constructor(db: Kysely<DirectoryDatabase>) {
    this.#db = db;
  }
  async byEmailMac(mac: string) {
    const r = await this.#db.selectFrom('persons').selectAll().where('email_mac', '=', mac).executeTakeFirst();
    return r ? person(r) : null;
  }
  async get(id: string) {
    const r = await this.#db.selectFrom('persons').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? person(r) : null;
  }
  async insert(p: PersonRecord) {
    await this.#db.insertInto('persons').values({ id: p.id, email_mac: p.emailMac, created_at: p.createdAt, email_proven_at: p.emailProvenAt, kept: p.kept, broken: p.broken }).execute();
  }
  async proveEmail(id: string, nowMs: number) {
    await this.#db.updateTable('persons').set({ email_proven_at: nowMs }).where('id', '=', id).where('email_proven_at', 'is', null).execute();
  }
  async addKey(k: PersonKeyRecord) {
    await this.#db.insertInto('person_keys').values({ id: k.id, person_id: k.personId, secret_hash: k.secretHash, created_at: k.createdAt, mailed_at: k.mailedAt, revoked_at: k.revokedAt }).execute();
  }
  async getKey(id: string) {
    const r = await this.#db.selectFrom('person_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? { id: r.id, personId: r.person_id, secretHash: r.secret_hash, createdAt: n(r.created_at), mailedAt: nn(r.mailed_at), revokedAt: nn(r.revoked_at) } : null;
  }
  async setKeySecret(id: string, secretHash: string, nowMs: number) {
    await this.#db.updateTable('person_keys').set({ secret_hash: secretHash, mailed_at: nowMs }).where('id', '=', id).execute();
  }
  async revokeKey(id: string, nowMs: number) {
    await this.#db.updateTable('person_keys').set({ revoked_at: nowMs }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  }
  async addPass(p: PassRecord) {
    await this.#db
      .insertInto('passes')
      .values({ id: p.id, person_id: p.personId, key_id: p.keyId, secret_hash: p.secretHash, delegated_jkt: p.delegatedJkt, created_at: p.createdAt, revoked_at: p.revokedAt })
      .execute();
  }
  async getPass(id: string): Promise<PassRecord | null> {
    const r = await this.#db.selectFrom('passes').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? { id: r.id, personId: r.person_id, keyId: r.key_id, secretHash: r.secret_hash, delegatedJkt: r.delegated_jkt, createdAt: n(r.created_at), revokedAt: nn(r.revoked_at) } : null;
  }
  async revokePass(id: string, nowMs: number) {
    await this.#db.updateTable('passes').set({ revoked_at: nowMs }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  }
  async revokePassesOfKey(keyId: string, nowMs: number) {
    const r = await this.#db.updateTable('passes').set({ revoked_at: nowMs }).where('key_id', '=', keyId).where('revoked_at', 'is', null).executeTakeFirst();
    return Number(r.numUpdatedRows);
  }
  async addPresentation(p: { id: string; personId: string; passId: string; instance: string; createdAt: number }) {
    await this.#db.insertInto('presentations').values({ id: p.id, person_id: p.personId, pass_id: p.passId, instance: p.instance, created_at: p.createdAt }).execute();
  }
  async presentation(id: string) {
    const r = await this.#db.selectFrom('presentations').select(['id', 'person_id', 'instance']).where('id', '=', id).executeTakeFirst();
    return r ? { id: r.id, personId: r.person_id, instance: r.instance } : null;
  }
  async businesses(personId: string) {
    const r = await this.#db.selectFrom('presentations').select((eb) => eb.fn.count<number>('instance').distinct().as('n')).where('person_id', '=', personId).executeTakeFirst();
    return n(r?.n ?? 0);
  }
  async recentUse(passId: string, sinceMs: number) {
    const r = await this.#db
      .selectFrom('presentations')
      .select((eb) => [eb.fn.countAll<number>().as('p'), eb.fn.count<number>('instance').distinct().as('b')])
      .where('pass_id', '=', passId)
      .where('created_at', '>=', sinceMs)
      .executeTakeFirst();
    return { presentations: n(r?.p ?? 0), businesses: n(r?.b ?? 0) };
  }
  async addOutcome(o: { presentationId: string; receiptId: string; personId: string; side: string; createdAt: number }) {
    const held = await this.#db.selectFrom('person_outcomes').select('side').where('presentation_id', '=', o.presentationId).where('receipt_id', '=', o.receiptId).executeTakeFirst();
    if (held) return false;
    await this.#db.insertInto('person_outcomes').values({ presentation_id: o.presentationId, receipt_id: o.receiptId, person_id: o.personId, side: o.side, created_at: o.createdAt }).execute();
    if (o.side === 'kept') await this.#db.updateTable('persons').set((eb) => ({ kept: eb('kept', '+', 1) })).where('id', '=', o.personId).execute();
    if (o.side === 'broken') await this.#db.updateTable('persons').set((eb) => ({ broken: eb('broken', '+', 1) })).where('id', '=', o.personId).execute();
    return true;
  }
  async addIssuance(i: { id: string; instance: string; personId: string; createdAt: number }) {
    await this.#db.insertInto('issuances').values({ id: i.id, instance: i.instance, person_id: i.personId, created_at: i.createdAt }).execute();
  }
  async issuancesSince(instance: string, sinceMs: number) {
    const r = await this.#db.selectFrom('issuances').select((eb) => eb.fn.countAll<number>().as('n')).where('instance', '=', instance).where('created_at', '>=', sinceMs).executeTakeFirst();
    return n(r?.n ?? 0);
  }
}

function person(r: { id: string; email_mac: string; created_at: number; email_proven_at: number | null; kept: number; broken: number }): PersonRecord {
  return { id: r.id, emailMac: r.email_mac, createdAt: n(r.created_at), emailProvenAt: nn(r.email_proven_at), kept: n(r.kept), broken: n(r.broken) };
}
