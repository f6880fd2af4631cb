/**
 * The network side of customers' identity (docs/identity.md "The network side"): a person is made
 * once, for a first-time customer a member business asked for, and their key is mailed to them;
 * a key becomes passes; a pass (or a pass reference in a request signed by the agent key it is
 * delegated to) is presented at businesses, each of which sees its own pairwise person id and the
 * person's standing; outcomes reported with a business's signed receipt move the standing. Only the
 * fields the contract lists leave the network; an address is kept only as an HMAC.
 */
import { Problem, ed25519JwkProblem, ed25519Thumbprint, isOutcomeCode, newId, OUTCOME_CODES, verifyEd25519, verifyReceipt, type Ed25519PublicJwk, type Mailer } from '@svc/shared';
import type { DirectoryContext } from '../context.js';
import type { PersonRecord } from '../../store/person-store.js';
import { normaliseEmail, type NetworkPepper } from './network-pepper.js';
import { keyString, parsePersonToken, passRefString, passString, randomBase32, secretHash, secretMatches } from './person-tokens.js';

export const PERSON_LIMITS = {
  /** New persons one instance may ask for a day. */
  issuancesPerInstanceDay: 50,
  /** A pass presented at more businesses than this in a day, or more often than this in an hour, is unusual. */
  unusualBusinessesDay: 10,
  unusualPresentationsHour: 60,
  /** A forwarded agent signature must have been made this recently (seconds). */
  forwardedSignatureMaxAge: 360,
} as const;

export interface PersonsDeps {
  ctx: DirectoryContext;
  pepper: NetworkPepper;
  /** This network's host, the second field of every key and pass it makes. */
  host: string;
  mailer: Mailer;
  /** The network's name in mail. */
  name: string;
}

export interface Standing {
  tier: 'new' | 'building' | 'trusted';
  score: number;
  kept: number;
  broken: number;
  businesses: number;
  since: string;
  email_proven: boolean;
  unusual_use: boolean;
}

export function networkHost(baseUrl: string): string {
  return new URL(baseUrl).host;
}

/** The standing a business is shown: counts, and a tier and score from them (rules in docs/identity.md). */
export async function standingOf(deps: PersonsDeps, person: PersonRecord, passId: string | null): Promise<Standing> {
  const store = deps.ctx.store.persons;
  const nowMs = deps.ctx.clock.now();
  const businesses = await store.businesses(person.id);
  const score = Math.round(((person.kept + 1) / (person.kept + person.broken + 2)) * 100) / 100;
  const tier = person.kept >= 10 && score >= 0.9 && businesses >= 3 ? 'trusted' : person.kept >= 2 && score >= 0.7 ? 'building' : 'new';
  let unusual = false;
  if (passId) {
    const day = await store.recentUse(passId, nowMs - 86_400_000);
    const hour = await store.recentUse(passId, nowMs - 3_600_000);
    unusual = day.businesses > PERSON_LIMITS.unusualBusinessesDay || hour.presentations > PERSON_LIMITS.unusualPresentationsHour;
  }
  return {
    tier,
    score,
    kept: person.kept,
    broken: person.broken,
    businesses,
    since: new Date(person.createdAt).toISOString().slice(0, 10),
    email_proven: person.emailProvenAt !== null,
    unusual_use: unusual,
  };
}

function ppid(deps: PersonsDeps, personId: string, instance: string): string {
  return deps.pepper.mac('ppid', `${personId}|${instance}`).slice(0, 22);
}

/** POST /v1/persons: a first-time customer of `instance`; their key is mailed once. */
export async function issuePerson(deps: PersonsDeps, instance: string, body: { email?: unknown; request_id?: unknown }): Promise<{ status: 'issued' | 'person_exists' }> {
  const email = typeof body.email === 'string' ? normaliseEmail(body.email) : null;
  if (!email) throw new Problem('bad_request', 'email must be a plain mail address.');
  const { ctx } = deps;
  const nowMs = ctx.clock.now();
  const mac = deps.pepper.mac('email', email);
  const pending = await ctx.store.transaction(async (store) => {
    const known = await store.persons.byEmailMac(mac);
    if (known) {
      const key = await store.persons.getKey(`k${known.id}`);
      return key && key.mailedAt === null && key.revokedAt === null ? { personId: known.id, keyId: key.id } : null;
    }
    if ((await store.persons.issuancesSince(instance, nowMs - 86_400_000)) >= PERSON_LIMITS.issuancesPerInstanceDay) {
      throw new Problem('rate_limited', `An instance may ask for ${PERSON_LIMITS.issuancesPerInstanceDay} new persons a day.`, { headers: { 'retry-after': '3600' } });
    }
    const personId = randomBase32(16);
    await store.persons.insert({ id: personId, emailMac: mac, createdAt: nowMs, emailProvenAt: null, kept: 0, broken: 0 });
    // One key per person, made once: its id derives from the person's.
    await store.persons.addKey({ id: `k${personId}`, personId, secretHash: null, createdAt: nowMs, mailedAt: null, revokedAt: null });
    await store.persons.addIssuance({ id: newId(nowMs), instance, personId, createdAt: nowMs });
    return { personId, keyId: `k${personId}` };
  });
  if (!pending) return { status: 'person_exists' };
  // The key is made and mailed now; only its hash is kept, and the address nowhere.
  const secret = randomBase32(32);
  const key = keyString(deps.host, pending.keyId.slice(1), secret);
  try {
    await deps.mailer.send({
      to: email,
      subject: `${deps.name}: your key`,
      text: [
        `A business you booked with (${new URL(instance).host}) asked ${deps.name} to give you a key.`,
        '',
        `Your key: ${key}`,
        '',
        'Give it to your assistant once: it becomes a pass the assistant shows to businesses, so they can see you keep your word.',
        'Keep it secret. It is shown only this once. To stop every pass it made, revoke it at any time.',
      ].join('\n'),
    });
  } catch {
    throw new Problem('unavailable', 'The key could not be mailed now; ask again later.', { headers: { 'retry-after': '300' } });
  }
  await ctx.store.persons.setKeySecret(pending.keyId, secretHash(secret), ctx.clock.now());
  return { status: 'issued' };
}

/** A key the holder presents: the person behind it, or why not. */
async function openKey(deps: PersonsDeps, value: string) {
  const token = parsePersonToken(value);
  if (!token || token.kind !== 'key' || token.host !== deps.host) return { status: 'unknown_pass' as const };
  const key = await deps.ctx.store.persons.getKey(`k${token.id}`);
  if (!key || !secretMatches(token.secret, key.secretHash)) return { status: 'unknown_pass' as const };
  if (key.revokedAt !== null) return { status: 'revoked' as const };
  const person = await deps.ctx.store.persons.get(key.personId);
  if (!person) return { status: 'unknown_pass' as const };
  return { status: 'ok' as const, key, person };
}

/** A key becomes a pass (POST /v1/passes, or a key presented at a business); optionally delegated to an agent key. */
export async function passFromKey(deps: PersonsDeps, value: string, delegateJkt?: string): Promise<{ status: 'issued'; pass: string; pass_ref: string; personId: string } | { status: 'unknown_pass' | 'revoked' }> {
  const opened = await openKey(deps, value);
  if (opened.status !== 'ok') return { status: opened.status };
  const nowMs = deps.ctx.clock.now();
  const id = randomBase32(16);
  const secret = randomBase32(32);
  await deps.ctx.store.persons.addPass({ id, personId: opened.person.id, keyId: opened.key.id, secretHash: secretHash(secret), delegatedJkt: delegateJkt ?? null, createdAt: nowMs, revokedAt: null });
  // Using the mailed key proves the person holds the address it went to.
  await deps.ctx.store.persons.proveEmail(opened.person.id, nowMs);
  return { status: 'issued', pass: passString(deps.host, id, secret), pass_ref: passRefString(deps.host, id), personId: opened.person.id };
}

export interface AgentKeyForward {
  jkt?: unknown;
  jwk?: unknown;
  label?: unknown;
  signature_input?: unknown;
  signature?: unknown;
  signature_base?: unknown;
}

/** Checks an agent's forwarded signature: its key is the delegated one, it was made for this instance and this pass reference, lately, and it verifies. */
function forwardedSignatureProblem(deps: PersonsDeps, instance: string, passRef: string, delegatedJkt: string | null, agent: AgentKeyForward): string | null {
  if (delegatedJkt === null) return 'the pass is delegated to no agent key';
  if (ed25519JwkProblem(agent.jwk) !== null) return 'no usable agent key';
  const jwk = agent.jwk as Ed25519PublicJwk;
  if (ed25519Thumbprint(jwk) !== delegatedJkt || agent.jkt !== delegatedJkt) return 'the pass is delegated to another key';
  if (typeof agent.signature_base !== 'string' || typeof agent.signature !== 'string' || typeof agent.label !== 'string' || agent.signature_base.length > 8192) return 'no signature';
  const lines = agent.signature_base.split('\n');
  const authority = lines.find((l) => l.startsWith('"@authority": '))?.slice(14);
  if (authority !== new URL(instance).host) return 'the signature was made for another business';
  const passLine = lines.find((l) => l.startsWith('"svc-pass": '));
  if (!passLine || !passLine.includes(passRef)) return 'the signature does not cover this pass reference';
  const created = /;created=(\d+)/.exec(lines.at(-1) ?? '')?.[1];
  const age = deps.ctx.clock.now() / 1000 - Number(created);
  if (!created || age > PERSON_LIMITS.forwardedSignatureMaxAge || age < -60) return 'the signature is not recent';
  // The Signature member as the inbox received it: `<label>=:<base64>:`.
  const member = new RegExp(`(?:^|,\\s*)${agent.label.replace(/[^A-Za-z0-9*_.-]/g, '')}=:([A-Za-z0-9+/=]{1,200}):`).exec(agent.signature);
  const bytes = member ? Buffer.from(member[1] as string, 'base64') : null;
  if (!bytes || !verifyEd25519(agent.signature_base, bytes, jwk)) return 'the signature does not verify';
  return null;
}

export type PresentationAnswer =
  | { status: 'presented'; presentation_id: string; ppid: string; person: Standing; pass?: string }
  | { status: 'unknown_pass' | 'revoked' | 'pass_requires_signature'; detail?: string };

/** POST /v1/presentations: a business shows a pass, a key (which becomes a pass) or a pass reference with the agent's signature. */
export async function presentToNetwork(deps: PersonsDeps, instance: string, body: { pass?: unknown; key?: unknown; pass_ref?: unknown; agent_key?: unknown }): Promise<PresentationAnswer> {
  const nowMs = deps.ctx.clock.now();
  let passId: string;
  let personId: string;
  let madePass: string | undefined;
  if (typeof body.key === 'string') {
    const made = await passFromKey(deps, body.key);
    if (made.status !== 'issued') return { status: made.status };
    passId = parsePersonToken(made.pass_ref)!.id;
    personId = made.personId;
    madePass = made.pass;
  } else {
    const value = typeof body.pass === 'string' ? body.pass : typeof body.pass_ref === 'string' ? body.pass_ref : '';
    const token = parsePersonToken(value);
    if (!token || token.kind === 'key' || token.host !== deps.host) return { status: 'unknown_pass' };
    const pass = await deps.ctx.store.persons.getPass(token.id);
    if (!pass) return { status: 'unknown_pass' };
    if (token.kind === 'pass') {
      if (!secretMatches(token.secret, pass.secretHash)) return { status: 'unknown_pass' };
    } else {
      const agent = (typeof body.agent_key === 'object' && body.agent_key !== null ? body.agent_key : {}) as AgentKeyForward;
      const problem = forwardedSignatureProblem(deps, instance, value, pass.delegatedJkt, agent);
      if (problem) return { status: 'pass_requires_signature', detail: problem };
    }
    if (pass.revokedAt !== null) return { status: 'revoked' };
    passId = pass.id;
    personId = pass.personId;
  }
  const person = await deps.ctx.store.persons.get(personId);
  if (!person) return { status: 'unknown_pass' };
  const id = randomBase32(22);
  await deps.ctx.store.persons.addPresentation({ id, personId, passId, instance, createdAt: nowMs });
  return { status: 'presented', presentation_id: id, ppid: ppid(deps, personId, instance), person: await standingOf(deps, person, passId), ...(madePass ? { pass: madePass } : {}) };
}

/** POST /v1/passes/revoke: the person, with their key, revokes one pass, or the key and every pass it made. */
export async function revokeWithKey(deps: PersonsDeps, body: { key?: unknown; pass?: unknown }): Promise<{ revoked: number }> {
  if (typeof body.key !== 'string') throw new Problem('unauthorized', 'Send the person\'s key.');
  const opened = await openKey(deps, body.key);
  if (opened.status === 'unknown_pass') throw new Problem('unauthorized', 'That key is not one this network gave out.');
  const nowMs = deps.ctx.clock.now();
  if (typeof body.pass === 'string') {
    const token = parsePersonToken(body.pass);
    const pass = token && token.kind !== 'key' ? await deps.ctx.store.persons.getPass(token.id) : null;
    if (!pass || opened.status !== 'ok' || pass.personId !== opened.person.id) throw new Problem('not_found', 'No such pass of this person.');
    await deps.ctx.store.persons.revokePass(pass.id, nowMs);
    return { revoked: 1 };
  }
  if (opened.status !== 'ok') return { revoked: 0 };
  return deps.ctx.store.transaction(async (store) => {
    const revoked = await store.persons.revokePassesOfKey(opened.key.id, nowMs);
    await store.persons.revokeKey(opened.key.id, nowMs);
    return { revoked: revoked + 1 };
  });
}

/** POST /v1/presentations/{id}/outcomes: a business reports how a presented customer's promise ended, with its signed outcome receipt. */
export async function recordOutcome(
  deps: PersonsDeps,
  instance: string,
  presentationId: string,
  body: { receipt?: unknown },
  lookupKey: (kid: string) => Promise<Ed25519PublicJwk | null>,
): Promise<{ counted: boolean; side: string }> {
  const presentation = await deps.ctx.store.persons.presentation(presentationId);
  if (!presentation || presentation.instance !== instance) throw new Problem('not_found', 'No presentation of this instance has that id.');
  if (typeof body.receipt !== 'string') throw new Problem('bad_request', 'Send the outcome receipt (compact JWS) as receipt.');
  const verified = await verifyReceipt(body.receipt, lookupKey);
  if (!verified.ok) throw new Problem('bad_request', `The receipt does not verify: ${verified.detail}`);
  const claims = verified.claims as unknown as Record<string, unknown>;
  if (claims.iss !== instance) throw new Problem('not_allowed', 'The receipt was issued by another instance.');
  if (claims.knd !== 'outcome' || !isOutcomeCode(claims.out)) throw new Problem('bad_request', 'Only an outcome receipt moves a standing.');
  const side = (OUTCOME_CODES[claims.out] as { customer?: string | null }).customer ?? 'neutral';
  if (claims.sbx === 1) return { counted: false, side };
  const counted = await deps.ctx.store.transaction((store) =>
    store.persons.addOutcome({ presentationId, receiptId: String(claims.nonce), personId: presentation.personId, side: side ?? 'neutral', createdAt: deps.ctx.clock.now() }),
  );
  return { counted, side };
}
