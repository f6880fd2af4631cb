/**
 * The owner's notices as durable jobs (docs/mail.md "The owner's notices"): a mail job takes every
 * notice not mailed yet and mails them together, a push job every notice not pushed yet to each
 * browser the owner allowed. Each notice has jobs of its own; the first due takes what waits, the
 * later ones find it sent. The network calls happen in `prepare`, outside any transaction; `commit`
 * marks the notices done with the job's finish, forgets browsers whose push service answered 404 or
 * 410, and queues another job when more notices wait than one run takes. A mail that fails is retried
 * with the runner's backoff; so is a push that reached no browser at all.
 */
import { newId, type JobRecord } from '@svc/shared';
import { loadProfile, readSettings } from '../domain/context.js';
import type { BusinessProfile } from '../domain/catalogue/profile.js';
import type { MailServices } from '../domain/mail/mail-services.js';
import { itemDetail } from '../domain/mail/notices.js';
import { noticeTexts, type NoticeTexts } from '../domain/mail/notice-texts.js';
import { readerOf, type Reader } from '../domain/mail/reader-language.js';
import { OWNER_MAIL_JOB, OWNER_PUSH_JOB } from '../domain/notifications/owner-notices.js';
import type { Clock } from '../domain/types.js';
import type { OwnerNoticeKind, OwnerNoticeRecord } from '../store/notification-store.js';
import type { InboxStore } from '../store/store.js';
import { sendPush, type PushOutcome, type PushSettings } from '../notifications/push-sender.js';

/** Notices one mail lists; more wait for the next run, queued at once. */
const MAIL_BATCH = 50;
const PUSH_BATCH = 20;
/** How long a job holds the notices it sends: shorter than the runner's job lease, so a crashed job run again finds them free. */
const CLAIM_MS = 45_000;
const SNIPPET_CHARS = 140;

interface NoticeLine {
  headline: string;
  detail: string;
  link: string;
  itemId: string;
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS - 1)}…` : flat;
}

/** Which notice names an item's line when several of one batch are about it (a message that also answered a question). */
const WEIGHT: Record<OwnerNoticeKind, number> = { new: 5, cancelled: 4, payment: 3, message: 2, answered: 1 };

/**
 * One line per item: what happened (the weightiest of its notices in this batch), who and which, a
 * message's first words, and the link to the item in the owner app.
 */
async function linesOf(store: InboxStore, notices: readonly OwnerNoticeRecord[], reader: Reader, t: NoticeTexts, baseUrl: string, nowMs: number): Promise<NoticeLine[]> {
  const byItem = new Map<string, OwnerNoticeRecord[]>();
  for (const notice of notices) byItem.set(notice.itemId, [...(byItem.get(notice.itemId) ?? []), notice]);
  const lines: NoticeLine[] = [];
  for (const [itemId, ofItem] of byItem) {
    const item = await store.items.get(itemId);
    if (!item) continue;
    const kind = ofItem.reduce((best, n) => (WEIGHT[n.kind] > WEIGHT[best] ? n.kind : best), ofItem[0]!.kind);
    const parts: string[] = [];
    if (item.contact?.name) parts.push(item.contact.name);
    const detail = itemDetail(item, reader, nowMs, t);
    if (detail) parts.push(detail);
    const messageNotice = ofItem.findLast((n) => n.kind === 'message');
    if (messageNotice) {
      const event = (await store.items.listEvents(item.id)).find((e) => e.id === messageNotice.eventId);
      const messageId = event?.data?.messageId;
      const message = (await store.items.listMessages(item.id, false)).find((m) => m.id === messageId);
      if (message) parts.push(`“${snippet(message.body)}”`);
    }
    lines.push({ headline: t.owner.kind[kind](item.type), detail: parts.join(' · '), link: `${baseUrl}/app/items/${item.id}`, itemId: item.id });
  }
  return lines;
}

function ownerReader(profile: BusinessProfile): { reader: Reader; t: NoticeTexts } {
  const reader = readerOf(null, profile);
  return { reader, t: noticeTexts(reader.lang) };
}

type MailPrepared = { ids: string[]; more: boolean; sent: { to: string; subject: string; messageId: string } | null } | null;

/** The mail of the notices a job took: one line per item, in the business's language. */
async function mailNotices(
  store: InboxStore,
  clock: Clock,
  mail: MailServices,
  job: JobRecord,
  notices: readonly OwnerNoticeRecord[],
): Promise<{ to: string; subject: string; messageId: string } | null> {
  const to = (await readSettings(store)).notifications.ownerEmail;
  // The address was taken away meanwhile: these notices go by mail to nobody.
  if (!to) return null;
  const { profile } = await loadProfile(store);
  const { reader, t } = ownerReader(profile);
  const lines = await linesOf(store, notices, reader, t, mail.publicBaseUrl, clock.now());
  if (lines.length === 0) return null;
  const subject = lines.length === 1 ? t.owner.subjectOne(profile.name, lines[0]!.headline) : t.owner.subjectMany(profile.name, lines.length);
  const text = [
    t.owner.lead(lines.length),
    '',
    ...lines.flatMap((line) => [`• ${line.headline}${line.detail ? ` — ${line.detail}` : ''}`, `  ${line.link}`]),
    '',
    t.owner.open,
    `${mail.publicBaseUrl}/app/inbox`,
    '',
    '-- ',
    t.owner.settingsHint,
    '',
  ].join('\n');
  const host = mail.fromAddress.slice(mail.fromAddress.lastIndexOf('@') + 1);
  const messageId = `${job.id.toLowerCase()}.${notices[0]!.id.toLowerCase()}@${host}`;
  await mail.mailer.send({
    to,
    from: `"${profile.name.replace(/["\\\r\n]/g, '')}" <${mail.fromAddress}>`,
    subject: subject.replace(/[\r\n]+/g, ' '),
    text,
    messageId,
    headers: { 'Auto-Submitted': 'auto-generated' },
  });
  return { to, subject, messageId };
}

/**
 * Takes the notices a job sends (claimNotices: never two jobs the same notice), runs `send`, and gives
 * them back at once when it fails, so this job's retry, or the next notice's job, takes them.
 */
async function withClaimed<T>(store: InboxStore, clock: Clock, channel: 'mail' | 'push', limit: number, send: (notices: OwnerNoticeRecord[]) => Promise<T>): Promise<{ ids: string[]; more: boolean; result: T } | null> {
  const notices = await store.notifications.claimNotices(channel, clock.now(), CLAIM_MS, limit);
  if (notices.length === 0) return null;
  const ids = notices.map((n) => n.id);
  try {
    return { ids, more: notices.length === limit, result: await send(notices) };
  } catch (error) {
    await store.notifications.releaseNotices(channel, ids);
    throw error;
  }
}

export function ownerMailHandler(store: InboxStore, clock: Clock, mail: MailServices) {
  return {
    prepare: async (job: JobRecord): Promise<MailPrepared> => {
      const taken = await withClaimed(store, clock, 'mail', MAIL_BATCH, (notices) => mailNotices(store, clock, mail, job, notices));
      return taken && { ids: taken.ids, more: taken.more, sent: taken.result };
    },
    commit: async (_job: JobRecord, tx: InboxStore, prepared: unknown): Promise<void> => {
      const done = prepared as MailPrepared;
      if (!done) return;
      const nowMs = clock.now();
      await tx.notifications.markNotices('mail', done.ids, nowMs);
      if (done.sent) {
        await tx.mail.addOutbound({ id: newId(nowMs), kind: 'owner:notices', itemId: null, to: done.sent.to, subject: done.sent.subject, sealedText: null, messageId: done.sent.messageId, status: 'sent', createdAt: nowMs, sentAt: nowMs });
      }
      if (done.more) await tx.jobs.enqueue({ id: newId(nowMs), kind: OWNER_MAIL_JOB, payload: {}, runAt: nowMs, dedupeKey: null }, nowMs);
    },
  };
}

type PushPrepared = { ids: string[]; more: boolean; outcomes: { id: string; outcome: PushOutcome }[] } | null;

/** What a push says: one notice in full, several counted. */
function pushMessage(profile: BusinessProfile, lines: readonly NoticeLine[], t: NoticeTexts, lang: string, baseUrl: string): string {
  const one = lines.length === 1 ? lines[0]! : null;
  return JSON.stringify({
    title: `${profile.name}: ${one ? one.headline : t.owner.pushMany(lines.length)}`,
    body: one ? one.detail : lines.map((line) => line.headline).slice(0, 5).join('\n'),
    url: one ? `${baseUrl}/app/items/${one.itemId}` : `${baseUrl}/app/inbox`,
    tag: one ? `item-${one.itemId}` : 'inbox',
    lang,
  });
}

/** Pushes the notices a job took to every subscribed browser; throws when none took it (to be retried). */
async function pushNotices(store: InboxStore, clock: Clock, mail: MailServices, settings: PushSettings, notices: readonly OwnerNoticeRecord[]): Promise<{ id: string; outcome: PushOutcome }[]> {
  const subscriptions = await store.notifications.listSubscriptions();
  if (subscriptions.length === 0) return [];
  const { profile } = await loadProfile(store);
  const { reader, t } = ownerReader(profile);
  const lines = await linesOf(store, notices, reader, t, mail.publicBaseUrl, clock.now());
  if (lines.length === 0) return [];
  const message = pushMessage(profile, lines, t, reader.locale, mail.publicBaseUrl);
  const outcomes = await Promise.all(subscriptions.map(async (s) => ({ id: s.id, outcome: await sendPush(s, message, settings) })));
  // No browser reached and none gone for good: the push service is down or slow; try again later.
  if (outcomes.every((o) => o.outcome.kind === 'failed')) {
    const first = outcomes[0]!.outcome;
    throw new Error(`no push service took the notice (${first.kind === 'failed' ? first.error : ''})`);
  }
  return outcomes;
}

export function ownerPushHandler(store: InboxStore, clock: Clock, mail: MailServices, push: () => PushSettings) {
  return {
    prepare: async (): Promise<PushPrepared> => {
      const taken = await withClaimed(store, clock, 'push', PUSH_BATCH, (notices) => pushNotices(store, clock, mail, push(), notices));
      return taken && { ids: taken.ids, more: taken.more, outcomes: taken.result };
    },
    commit: async (_job: JobRecord, tx: InboxStore, prepared: unknown): Promise<void> => {
      const done = prepared as PushPrepared;
      if (!done) return;
      const nowMs = clock.now();
      await tx.notifications.markNotices('push', done.ids, nowMs);
      for (const { id, outcome } of done.outcomes) {
        if (outcome.kind === 'gone') await tx.notifications.removeSubscription(id);
        else if (outcome.kind === 'sent') await tx.notifications.recordPushOutcome(id, { sentAt: nowMs, error: null });
        else await tx.notifications.recordPushOutcome(id, { sentAt: null, error: outcome.error });
      }
      if (done.more) await tx.jobs.enqueue({ id: newId(nowMs), kind: OWNER_PUSH_JOB, payload: {}, runAt: nowMs, dedupeKey: null }, nowMs);
    },
  };
}
