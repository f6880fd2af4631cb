/**
 * Mail whose text is a secret (a one-time code): written sealed (SecretBox, bound to its row) with a
 * durable job in the caller's transaction, sent by the job, and its text forgotten once sent.
 */
import { newId } from '@svc/shared';
import type { DomainContext } from '../context.js';
import type { SecretBox } from '../secrets/secret-box.js';

export const SEND_MAIL_JOB = 'mail.send';
export const MAIL_TEXT_PURPOSE = 'outbound-mail';

export async function queueSealedMail(
  ctx: DomainContext,
  secrets: SecretBox,
  mail: { kind: string; itemId: string | null; to: string; subject: string; text: string; host: string },
): Promise<string> {
  const nowMs = ctx.clock.now();
  const id = newId(nowMs);
  await ctx.store.mail.addOutbound({
    id,
    kind: mail.kind,
    itemId: mail.itemId,
    to: mail.to,
    subject: mail.subject,
    sealedText: secrets.seal(mail.text, MAIL_TEXT_PURPOSE, id),
    messageId: `${id.toLowerCase()}@${mail.host}`,
    status: 'queued',
    createdAt: nowMs,
    sentAt: null,
  });
  await ctx.store.jobs.enqueue({ id: newId(nowMs), kind: SEND_MAIL_JOB, payload: { mailId: id }, runAt: nowMs, dedupeKey: `mail:${id}` }, nowMs);
  return id;
}
