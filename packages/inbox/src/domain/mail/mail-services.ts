/** What sending mail needs (docs/mail.md): the mailer, this inbox's sender address and keys for reply tokens. */
import type { Mailer } from '@svc/shared';
import type { IdentityKeys } from '../identity/identity-keys.js';

export interface MailServices {
  mailer: Mailer;
  /** The sender address (INBOX_MAIL_FROM), a plain address; the display name is the business's. */
  fromAddress: string;
  keys: IdentityKeys;
  publicBaseUrl: string;
}

/** The default sender: inbox@<public host> when the host is a domain, else inbox@inbox.localhost. */
export function defaultFromAddress(publicBaseUrl: string): string {
  const host = new URL(publicBaseUrl).hostname;
  return /^[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$/i.test(host) && host !== 'localhost' ? `inbox@${host}` : 'inbox@inbox.localhost';
}
