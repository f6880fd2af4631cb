/**
 * An acknowledgement made by a signed request (inbox spec §4 acknowledge_receipt: "in a request you
 * sign, name it by receipt_id"; docs/receipts.md "Acknowledgement by a signed request"). The request's
 * verified svc-agent/1 signature is the counter-signature: what is kept is what lets anyone check it
 * with the agent's key alone, as an acknowledgement JWS can be checked: the signature base, the
 * signature, the key and the signed body, whose digest is in the base and which names the receipt.
 *
 * Since it is kept and shown (to the customer's agent, the owner, full webhooks), what was signed must
 * hold no secret: no access token, no person's key or full pass, anywhere in the base or the body.
 * Pure functions: the caller refuses or stores.
 */
import { checkContentDigest } from '@svc/shared';
import type { SignedRequestEvidence } from '../../store/receipt-store.js';
import type { SignedAgent } from '../types.js';

/** Where the public doors take acknowledge_receipt (after the public URL's own path, if it has one): REST's path and the public MCP server's. */
const REST_PATH = /\/v1\/items\/([^/?#]+)\/receipt-ack$/;
const MCP_PATH = /\/mcp$/;
const TOOL = 'acknowledge_receipt';

/** Strings that are secrets wherever they appear: an item's access token, a person's key, a full pass (not a pass reference). */
const SECRET_FORMS = /svc_tok_|svckey1_|svcpass1_[a-z0-9.:\-[\]]{1,120}_[a-z2-7]{16}_[a-z2-7]{32}/;

export type SignedAcknowledgementProblem =
  /** Not signed, or signed without binding method and path. */
  | 'unsigned'
  /** The base or the body holds a secret, which would be kept and shown. */
  | 'carries_secret'
  /** What was signed does not name this item and this receipt. */
  | 'receipt_not_signed';

export type SignedAcknowledgementReading =
  | { ok: true; evidence: SignedRequestEvidence; jkt: string; created: number }
  | { ok: false; problem: SignedAcknowledgementProblem };

/**
 * The evidence of `agent`'s signed request acknowledging `receiptId` of `itemId`, or why it cannot
 * be one. `agent` is the request's verified signature (the door checked it under svc-agent/1).
 */
export function readSignedAcknowledgement(agent: SignedAgent | undefined, itemId: string, receiptId: string): SignedAcknowledgementReading {
  if (!agent?.bound) return { ok: false, problem: 'unsigned' };
  const body = Buffer.from(agent.body).toString('utf8');
  const base = agent.forward.signature_base;
  if (SECRET_FORMS.test(base) || SECRET_FORMS.test(body)) return { ok: false, problem: 'carries_secret' };
  const evidence: SignedRequestEvidence = {
    key: { ...agent.publicJwk },
    platform: agent.platform,
    signature_input: agent.forward.signature_input,
    signature: agent.forward.signature,
    signature_base: base,
    body,
  };
  const named = namedBySignedRequest(evidence);
  if (named === null || named.itemId !== itemId || named.receiptId !== receiptId) return { ok: false, problem: 'receipt_not_signed' };
  return { ok: true, evidence, jkt: agent.jkt, created: agent.created };
}

/**
 * The item and receipt a signed request names, read from what its signature covers (the recipe a
 * stranger follows too, after checking the signature over the base with the key): the base's
 * `content-digest` is the digest of `body` (sha-256 or sha-512); then either REST (`@path` is
 * /v1/items/{item}/receipt-ack and the body's `receipt_id`) or MCP (`@path` is /mcp and the body is a
 * tools/call of acknowledge_receipt whose arguments hold `id` and `receipt_id`). Null when it names none.
 */
export function namedBySignedRequest(evidence: Pick<SignedRequestEvidence, 'signature_base' | 'body'>): { itemId: string; receiptId: string } | null {
  const lines = baseLines(evidence.signature_base);
  const digest = lines.get('"content-digest"');
  if (lines.get('"@method"') !== 'POST' || digest === undefined || !checkContentDigest(digest, evidence.body).ok) return null;
  let body: unknown;
  try {
    body = JSON.parse(evidence.body);
  } catch {
    return null;
  }
  const path = lines.get('"@path"') ?? '';
  const rest = REST_PATH.exec(path);
  if (rest) {
    const receiptId = fieldOf(body, 'receipt_id');
    return receiptId === null ? null : { itemId: rest[1] as string, receiptId };
  }
  if (MCP_PATH.test(path) && fieldOf(body, 'method') === 'tools/call') {
    const params = (body as { params?: unknown }).params;
    if (fieldOf(params, 'name') !== TOOL) return null;
    const args = (params as { arguments?: unknown }).arguments;
    const itemId = fieldOf(args, 'id');
    const receiptId = fieldOf(args, 'receipt_id');
    return itemId === null || receiptId === null ? null : { itemId, receiptId };
  }
  return null;
}

/** The base's lines by component (`"@path"` → its value); `@signature-params` is the last. */
function baseLines(base: string): Map<string, string> {
  const lines = new Map<string, string>();
  for (const line of base.split('\n')) {
    const at = line.indexOf('": ');
    if (at > 0) lines.set(line.slice(0, at + 1), line.slice(at + 3));
  }
  return lines;
}

function fieldOf(value: unknown, name: string): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const field = (value as Record<string, unknown>)[name];
  return typeof field === 'string' ? field : null;
}
