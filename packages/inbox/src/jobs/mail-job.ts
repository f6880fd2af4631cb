/**
 * Sending mail as durable jobs (docs/mail.md): the network call happens in `prepare`, outside any
 * transaction; `commit` records what was sent (its Message-ID, so a reply's In-Reply-To finds the item).
 * A failed send is retried with the runner's backoff; the job is buried after its last attempt.
 */
import { newId, type JobRecord } from '@svc/shared';
import { loadProfile } from '../domain/context.js';
import { composeNotice, type NoticeKind } from '../domain/mail/notices.js';
import { replyAddress } from '../domain/mail/reply-address.js';
import { MAIL_TEXT_PURPOSE } from '../domain/mail/queued-mail.js';
import type { MailServices } from '../domain/mail/mail-services.js';
import type { SecretBox } from '../domain/secrets/secret-box.js';
import type { Clock } from '../domain/types.js';
import type { InboxStore } from '../store/store.js';

type NoticeSent = { to: string; subject: string; messageId: string; itemId: string; notice: NoticeKind } | null;

export function noticeHandler(store: InboxStore, clock: Clock, mail: MailServices) {
  return {
    prepare: async (job: JobRecord): Promise<NoticeSent> => {
      const itemId = String(job.payload.itemId);
      const notice = String(job.payload.notice) as NoticeKind;
      const item = await store.items.get(itemId);
      const to = item?.contact?.email;
      if (!item || !to) return null;
      let reply: string | null = null;
      if (notice === 'reply') {
        const messages = await store.items.listMessages(itemId, false);
        reply = messages.find((m) => m.id === job.payload.messageId)?.body ?? null;
        if (reply === null) return null;
      }
      const { profile } = await loadProfile(store);
      const { subject, text } = composeNotice(profile.name, item, notice, reply, `${mail.publicBaseUrl}/v1/items/${item.id}`);
      const host = mail.fromAddress.slice(mail.fromAddress.lastIndexOf('@') + 1);
      const messageId = `${job.id.toLowerCase()}@${host}`;
      await mail.mailer.send({
        to,
        from: `"${profile.name.replace(/["\\\r\n]/g, '')}" <${mail.fromAddress}>`,
        replyTo: replyAddress(mail.keys, mail.fromAddress, item.id),
        subject: subject.replace(/[\r\n]+/g, ' '),
        text,
        messageId,
        headers: { 'X-Inbox-Item': item.id },
      });
      return { to, subject, messageId, itemId, notice };
    },
    commit: async (_job: JobRecord, tx: InboxStore, prepared: unknown): Promise<void> => {
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
    },
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
