/**
 * Sending mail as durable jobs (docs/mail.md): the network call happens in `prepare`, outside any
 * transaction; `commit` records what was sent (its Message-ID, so a reply's In-Reply-To finds the item).
 * A failed send is retried with the runner's backoff; the job is buried after its last attempt.
 */
import { newId, type JobRecord } from '@svc/shared';
import { loadProfile, readSettings } from '../domain/context.js';
import { customerPageLink } from '../domain/items/page-token.js';
import { composeNotice, type NoticeKind } from '../domain/mail/notices.js';
import { replyAddress } from '../domain/mail/reply-address.js';
import { MAIL_TEXT_PURPOSE } from '../domain/mail/queued-mail.js';
import type { MailServices } from '../domain/mail/mail-services.js';
import type { SecretBox } from '../domain/secrets/secret-box.js';
import type { Clock, ItemRecord } from '../domain/types.js';
import type { InboxStore } from '../store/store.js';

type NoticeSent = { to: string; subject: string; messageId: string; itemId: string; notice: NoticeKind } | null;

/** Sends a notice of an item to its customer; null when there is nothing to send. */
async function sendNotice(
  store: InboxStore,
  clock: Clock,
  mail: MailServices,
  item: ItemRecord,
  notice: NoticeKind,
  reply: string | null,
  messageId: string,
): Promise<NoticeSent> {
  const to = item.contact?.email;
  if (!to) return null;
  const [{ profile }, settings] = await Promise.all([loadProfile(store), readSettings(store)]);
  const { subject, text } = composeNotice({
    business: profile,
    settings,
    item,
    notice,
    reply,
    pageUrl: customerPageLink(mail.publicBaseUrl, mail.keys, item.id),
    nowMs: clock.now(),
  });
  await mail.mailer.send({
    to,
    from: `"${profile.name.replace(/["\\\r\n]/g, '')}" <${mail.fromAddress}>`,
    replyTo: replyAddress(mail.keys, mail.fromAddress, item.id),
    subject: subject.replace(/[\r\n]+/g, ' '),
    text,
    messageId,
    headers: { 'X-Inbox-Item': item.id },
  });
  return { to, subject, messageId, itemId: item.id, notice };
}

function mailHost(mail: MailServices): string {
  return mail.fromAddress.slice(mail.fromAddress.lastIndexOf('@') + 1);
}

function recordNotice(clock: Clock) {
  return async (_job: JobRecord, tx: InboxStore, prepared: unknown): Promise<void> => {
    const sent = prepared as NoticeSent;
    if (!sent) return;
    const nowMs = clock.now();
    await tx.mail.addOutbound({
      id: newId(nowMs),
      kind: `notice:${sent.notice}`,
      itemId: sent.itemId,
      to: sent.to,
      subject: sent.subject,
      sealedText: null,
      messageId: sent.messageId,
      status: 'sent',
      createdAt: nowMs,
      sentAt: nowMs,
    });
  };
}

export function noticeHandler(store: InboxStore, clock: Clock, mail: MailServices) {
  return {
    prepare: async (job: JobRecord): Promise<NoticeSent> => {
      const itemId = String(job.payload.itemId);
      const notice = String(job.payload.notice) as NoticeKind;
      const item = await store.items.get(itemId);
      if (!item) return null;
      let reply: string | null = null;
      if (notice === 'reply') {
        const messages = await store.items.listMessages(itemId, false);
        reply = messages.find((m) => m.id === job.payload.messageId)?.body ?? null;
        if (reply === null) return null;
      }
      return sendNotice(store, clock, mail, item, notice, reply, `${job.id.toLowerCase()}@${mailHost(mail)}`);
    },
    commit: recordNotice(clock),
  };
}

/**
 * The reminder the day before (domain/mail/reminders.ts): sent only while the booking is still
 * confirmed at the start it was scheduled for and the owner's setting is on. Its Message-ID is made
 * from the item and the start, so a reminder already recorded is not sent again.
 */
export function reminderHandler(store: InboxStore, clock: Clock, mail: MailServices) {
  return {
    prepare: async (job: JobRecord): Promise<NoticeSent> => {
      const item = await store.items.get(String(job.payload.itemId));
      if (!item || item.sandbox || item.state !== 'confirmed' || item.startAt !== Number(job.payload.startAt)) return null;
      if (!(await readSettings(store)).notifications.customerReminders) return null;
      const messageId = `reminder-${item.id.toLowerCase()}-${item.startAt}@${mailHost(mail)}`;
      if ((await store.mail.itemOfMessageId(messageId)) !== null) return null;
      return sendNotice(store, clock, mail, item, 'reminder', null, messageId);
    },
    commit: recordNotice(clock),
  };
}

export function sendMailHandler(store: InboxStore, clock: Clock, mail: MailServices, secrets: SecretBox) {
  return {
    prepare: async (job: JobRecord): Promise<string | null> => {
      const record = await store.mail.getOutbound(String(job.payload.mailId));
      if (!record || record.status === 'sent' || record.sealedText === null) return null;
      const { profile } = await loadProfile(store);
      await mail.mailer.send({
        to: record.to,
        from: `"${profile.name.replace(/["\\\r\n]/g, '')}" <${mail.fromAddress}>`,
        subject: record.subject,
        text: secrets.open(record.sealedText, MAIL_TEXT_PURPOSE, record.id),
        messageId: record.messageId,
        ...(record.itemId ? { replyTo: replyAddress(mail.keys, mail.fromAddress, record.itemId) } : {}),
      });
      return record.id;
    },
    commit: async (_job: JobRecord, tx: InboxStore, prepared: unknown): Promise<void> => {
      if (typeof prepared === 'string') await tx.mail.markSent(prepared, clock.now());
    },
  };
}
