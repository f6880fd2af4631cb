/**
 * Mail coming in (POST /v1/email/inbound, docs/mail.md): raw MIME from a provider's webhook or a
 * forwarder, parsed with postal-mime. A reply lands on its item (found by its reply address token,
 * else by In-Reply-To/References naming a notice we sent, when the sender is the item's customer); a
 * new sender starts a `message` conversation on channel `email`. The same Message-ID twice is one
 * entry. Everything it writes is written in one transaction: a refusal leaves nothing behind.
 */
import { createHash } from 'node:crypto';
import PostalMime, { type Address, type Email } from 'postal-mime';
import { Problem, isMailAddress } from '@svc/shared';
import type { DomainContext } from '../context.js';
import type { Caller } from '../types.js';
import { addCustomerMessage, startConversation } from '../items/customer-items.js';
import type { IdentityKeys } from '../identity/identity-keys.js';
import { itemOfReplyAddress } from './reply-address.js';

export const INBOUND_LIMITS = {
  /** The whole raw message, bytes (the route refuses larger bodies with 413). */
  maxBytes: 10 * 1024 * 1024,
  /** The header section, bytes. */
  maxHeaderBytes: 64 * 1024,
  /** Header fields. */
  maxHeaders: 300,
  /** Attachments (counted, named in the message, not kept). */
  maxAttachments: 20,
  /** Characters of text kept from the body (the rest is cut, saying so). */
  maxTextChars: 20_000,
  maxSubjectChars: 300,
} as const;

export interface InboundOutcome {
  item_id: string;
  /** Whether a new conversation was started (else the mail landed on an existing item). */
  created: boolean;
  /** The same Message-ID came before: nothing was written. */
  duplicate: boolean;
}

const EMAIL_CALLER: Caller = { kind: 'customer', actor: { kind: 'customer_human', id: null, name: null }, channel: 'email' };

/** Checks the header section before parsing: present, bounded, a sane number of fields. */
function checkHeaderSection(raw: Buffer): void {
  const text = raw.subarray(0, INBOUND_LIMITS.maxHeaderBytes + 4).toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  const head = end === -1 ? (raw.length <= INBOUND_LIMITS.maxHeaderBytes ? text : null) : text.slice(0, end);
  if (head === null) throw new Problem('payload_too_large', `The header section is larger than ${INBOUND_LIMITS.maxHeaderBytes} bytes.`);
  const fields = head.split(/\r?\n/).filter((line) => line !== '' && !/^[ \t]/.test(line));
  if (fields.length === 0 || !fields.every((line) => /^[!-9;-~]+:/.test(line))) throw new Problem('bad_request', 'This is not a MIME message: its header section does not parse.');
  if (fields.length > INBOUND_LIMITS.maxHeaders) throw new Problem('payload_too_large', `The message has more than ${INBOUND_LIMITS.maxHeaders} header fields.`);
}

function addresses(list: readonly Address[] | undefined): { name: string; address: string }[] {
  return (list ?? []).flatMap((a) => (a.group ? a.group : [a])).filter((m): m is { name: string; address: string } => typeof m.address === 'string');
}

/** Characters no stored text may hold (controls, bidi overrides, lone surrogates) are dropped; line breaks and tabs stay. */
function cleanText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]/g, '').replace(/[\uD800-\uDFFF]/gu, (c) => (c.length === 1 ? '' : c));
}

function cleanLine(text: string, max: number): string {
  return cleanText(text).replace(/[\n\t]+/g, ' ').trim().slice(0, max);
}

/** A readable text of an HTML-only mail: no markup, scripts or styles; entities of everyday text decoded. */
export function textOfHtml(html: string): string {
  return html
    .replace(/<(script|style|head)[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>|<\/(p|div|li|tr|h[1-6])\s*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#(\d+);/g, (_m, n: string) => String.fromCodePoint(Math.min(Number(n), 0x10ffff)))
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function bodyText(email: Email): string {
  const text = email.text?.trim() ? email.text : email.html ? textOfHtml(email.html) : '';
  let body = cleanText(text).trim();
  if (body.length > INBOUND_LIMITS.maxTextChars) body = `${body.slice(0, INBOUND_LIMITS.maxTextChars)}\n[… cut: the mail was longer]`;
  const attached = email.attachments.filter((a) => a.disposition !== 'inline' || a.filename);
  if (attached.length > 0) {
    const names = attached.map((a) => `[attachment: ${cleanLine(a.filename ?? 'unnamed', 120)} (${cleanLine(a.mimeType, 80)}, ${typeof a.content === 'string' ? a.content.length : a.content.byteLength} bytes), not kept]`);
    body = `${body}\n\n${names.join('\n')}`.trim();
  }
  return body === '' ? '(empty mail)' : body;
}

function messageIds(value: string | undefined): string[] {
  return [...(value ?? '').matchAll(/<([^<>\s]{1,250})>/g)].map((m) => m[1] as string);
}

export async function parseInbound(raw: Buffer): Promise<Email> {
  if (raw.length === 0) throw new Problem('bad_request', 'The body is empty; send the raw MIME message.');
  if (raw.length > INBOUND_LIMITS.maxBytes) throw new Problem('payload_too_large', `A mail may be at most ${INBOUND_LIMITS.maxBytes} bytes.`);
  checkHeaderSection(raw);
  let email: Email;
  try {
    email = await PostalMime.parse(raw, { maxNestingDepth: 20, maxHeadersSize: INBOUND_LIMITS.maxHeaderBytes, attachmentEncoding: 'arraybuffer' });
  } catch (error) {
    throw new Problem('bad_request', `The MIME message does not parse: ${error instanceof Error ? error.message.slice(0, 120) : 'unknown error'}.`);
  }
  if (email.attachments.length > INBOUND_LIMITS.maxAttachments) throw new Problem('payload_too_large', `A mail may carry at most ${INBOUND_LIMITS.maxAttachments} attachments.`);
  return email;
}

export async function receiveInboundMail(ctx: DomainContext, keys: IdentityKeys, raw: Buffer): Promise<InboundOutcome> {
  const email = await parseInbound(raw);
  const [from] = addresses(email.from ? [email.from] : []);
  if (!from || !isMailAddress(from.address)) throw new Problem('bad_request', 'The mail has no From address this inbox can answer.');
  const sender = from.address.toLowerCase();
  const messageKey = createHash('sha256').update(email.messageId?.trim() || raw).digest('base64url');
  const recipients = [...addresses(email.to), ...addresses(email.cc)].map((m) => m.address);
  for (const header of email.headers) {
    if (['delivered-to', 'x-original-to', 'envelope-to'].includes(header.key)) recipients.push(header.value);
  }
  const text = bodyText(email);
  const subject = cleanLine(email.subject ?? '', INBOUND_LIMITS.maxSubjectChars);

  return ctx.store.transaction(async (store) => {
    const tx: DomainContext = { ...ctx, store };
    const seen = await store.mail.inboundItem(messageKey);
    if (seen) return { item_id: seen, created: false, duplicate: true };
    let itemId: string | null = null;
    for (const recipient of recipients) {
      itemId = itemOfReplyAddress(keys, recipient);
      if (itemId) break;
    }
    if (!itemId) {
      for (const id of [...messageIds(email.inReplyTo), ...messageIds(email.references)]) {
        const about = await store.mail.itemOfMessageId(id);
        const item = about ? await store.items.get(about) : null;
        // A Message-ID is not a secret: it finds the item only for the customer who had the notice.
        if (item && item.contact?.email?.toLowerCase() === sender) {
          itemId = item.id;
          break;
        }
      }
    }
    const item = itemId ? await store.items.get(itemId) : null;
    let outcome: InboundOutcome;
    if (item) {
      await addCustomerMessage(tx, EMAIL_CALLER, item, text);
      outcome = { item_id: item.id, created: false, duplicate: false };
    } else {
      const created = await startConversation(tx, EMAIL_CALLER, {
        payload: subject ? { subject } : {},
        contact: { ...(from.name ? { name: cleanLine(from.name, 200) } : {}), email: sender },
        message: subject ? `${subject}\n\n${text}` : text,
      });
      outcome = { item_id: created.id, created: true, duplicate: false };
    }
    await store.mail.rememberInbound(messageKey, outcome.item_id, ctx.clock.now());
    return outcome;
  });
}
