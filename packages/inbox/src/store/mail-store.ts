/** What the inbox keeps of mail (docs/mail.md), in domain terms. */

export interface OutboundMailRecord {
  id: string;
  kind: string;
  itemId: string | null;
  to: string;
  subject: string;
  sealedText: string | null;
  messageId: string;
  status: 'queued' | 'sent';
  createdAt: number;
  sentAt: number | null;
}

export interface MailStore {
  addOutbound(record: OutboundMailRecord): Promise<void>;
  getOutbound(id: string): Promise<OutboundMailRecord | null>;
  /** Marks it sent and forgets its text. */
  markSent(id: string, nowMs: number): Promise<void>;
  /** The item an outgoing Message-ID was about. */
  itemOfMessageId(messageId: string): Promise<string | null>;
  listForItem(itemId: string): Promise<OutboundMailRecord[]>;
  /** Records an inbound message once: false when its key was seen before. */
  rememberInbound(messageKey: string, itemId: string, nowMs: number): Promise<boolean>;
  inboundItem(messageKey: string): Promise<string | null>;
}
