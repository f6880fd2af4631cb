/** Table shapes of the mail migration (0014), as Kysely sees them. */

export interface OutboundMailTable {
  id: string;
  kind: string; // notice:<what> | code | …
  item_id: string | null;
  to_address: string;
  subject: string;
  sealed_text: string | null; // SecretBox-sealed text while queued (codes); null once sent
  message_id: string; // without angle brackets
  status: string; // queued | sent
  created_at: number;
  sent_at: number | null;
}

export interface InboundMailTable {
  message_key: string; // SHA-256 of the Message-ID as received
  item_id: string;
  received_at: number;
}
