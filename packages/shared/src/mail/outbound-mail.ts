/**
 * Outbound mail for both services (docs/mail.md): through SMTP (nodemailer) when a service is given
 * an SMTP URL, otherwise into a development sink, a folder of `.eml` files under the data folder that
 * a local page lists. Either way the message is built by nodemailer, so what the sink holds is what
 * SMTP would have carried. Addresses and subjects are checked here: no line breaks or controls in a
 * header, one plain address per recipient (header injection is refused, never repaired). nodemailer is
 * loaded when a mailer is made, not with this module (the answer workers import @svc/shared too).
 */
import { SettingError } from '../errors/setting-error.js';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SendMailOptions, Transporter } from 'nodemailer';
import { newId } from '../ids.js';

/** nodemailer's transport factory, loaded once on first use. */
type CreateTransport = (options: object) => Transporter;
let factory: Promise<CreateTransport> | null = null;
function transportOf(options: object): Promise<Transporter> {
  factory ??= import('nodemailer').then((m) => m.default.createTransport.bind(m.default) as CreateTransport);
  return factory.then((create) => create(options));
}

export interface OutboundMail {
  to: string;
  subject: string;
  text: string;
  /** `"Name" <address>`, or an address; the mailer's default when absent. */
  from?: string;
  replyTo?: string;
  /** Without the angle brackets: `<id>@<host>`. */
  messageId?: string;
  inReplyTo?: string;
  /** Extra headers (names starting X-, and Auto-Submitted of RFC 3834), values single-line. */
  headers?: Record<string, string>;
}

export interface SentMail {
  messageId: string;
  /** Where it went: `smtp` or the sink file. */
  via: string;
}

export interface Mailer {
  readonly kind: 'smtp' | 'sink';
  /** A sentence for the start-up lines. */
  readonly describe: string;
  send(mail: OutboundMail): Promise<SentMail>;
  close(): void;
}

export class MailRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MailRefused';
  }
}

/** A plain address: local@domain, printable ASCII without spaces, quotes, angle brackets or commas. */
const ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)+$/;

export function isMailAddress(value: string): boolean {
  return value.length <= 254 && ADDRESS.test(value);
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

function headerValue(name: string, value: string, max = 998): string {
  if (CONTROL.test(value)) throw new MailRefused(`${name} holds a line break or control character`);
  if (value.length > max) throw new MailRefused(`${name} is longer than ${max} characters`);
  return value;
}

/** A display name and address as one header value, the name quoted by nodemailer (never spliced raw). */
export function mailbox(name: string | null | undefined, address: string): { name: string; address: string } {
  if (!isMailAddress(address)) throw new MailRefused('not a plain mail address');
  return { name: headerValue('the display name', (name ?? '').replace(/["\\]/g, ''), 200), address };
}

function checked(mail: OutboundMail, defaultFrom: string) {
  if (!isMailAddress(mail.to)) throw new MailRefused('the recipient is not a plain mail address');
  const message: SendMailOptions = {
    from: headerValue('From', mail.from ?? defaultFrom, 400),
    to: mail.to,
    subject: headerValue('Subject', mail.subject, 300),
    text: mail.text,
  };
  if (mail.replyTo !== undefined) {
    if (!isMailAddress(mail.replyTo)) throw new MailRefused('Reply-To is not a plain mail address');
    message.replyTo = mail.replyTo;
  }
  if (mail.messageId !== undefined) message.messageId = `<${headerValue('Message-ID', mail.messageId, 250)}>`;
  if (mail.inReplyTo !== undefined) message.inReplyTo = `<${headerValue('In-Reply-To', mail.inReplyTo, 250)}>`;
  if (mail.headers) {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(mail.headers)) {
      if (!/^X-[A-Za-z0-9-]{1,60}$/.test(name) && name !== 'Auto-Submitted') throw new MailRefused(`${name} is not an X- header name`);
      headers[name] = headerValue(name, value, 400);
    }
    message.headers = headers;
  }
  return message;
}

export interface SmtpSettings {
  /** smtp://user:pass@host:port or smtps://… */
  url: string;
  from: string;
  /** Milliseconds for connecting and for each command; 10 s by default. */
  timeoutMs?: number;
}

/** Sends through an SMTP server. */
export function smtpMailer(settings: SmtpSettings): Mailer {
  const url = new URL(settings.url);
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new SettingError('the SMTP URL must start with smtp:// or smtps://');
  const timeout = settings.timeoutMs ?? 10_000;
  const transport = transportOf({
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
    secure: url.protocol === 'smtps:',
    // Plain smtp:// to this machine (a relay or a test server) needs no STARTTLS; elsewhere it is required.
    ...(url.hostname === '127.0.0.1' || url.hostname === 'localhost' ? { ignoreTLS: true } : { requireTLS: url.protocol === 'smtp:' }),
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  });
  return {
    kind: 'smtp',
    describe: `mail goes out through SMTP at ${url.hostname}:${url.port || (url.protocol === 'smtps:' ? 465 : 587)}`,
    async send(mail) {
      const info = await (await transport).sendMail(checked(mail, settings.from));
      return { messageId: String(info.messageId ?? '').replace(/^<|>$/g, ''), via: 'smtp' };
    },
    close: () => void transport.then((t) => t.close()),
  };
}

/** Writes each message as an .eml file under `folder` (development: no SMTP configured). */
export function sinkMailer(folder: string, from: string, pageUrl: string): Mailer {
  const builder = transportOf({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'sink',
    describe: `no SMTP set: mail is kept in ${folder} and listed at ${pageUrl}`,
    async send(mail) {
      const info = (await (await builder).sendMail(checked(mail, from))) as { messageId?: string; message: Buffer };
      const file = `${newId()}.eml`;
      // Made with the first message: a data folder that never sent mail has no mail folder.
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      writeFileSync(join(folder, file), info.message, { mode: 0o600 });
      return { messageId: String(info.messageId ?? '').replace(/^<|>$/g, ''), via: file };
    },
    close: () => void builder.then((t) => t.close()),
  };
}

export interface SinkEntry {
  file: string;
  size: number;
  at: string;
  to: string;
  subject: string;
}

/** The sink's messages, newest first (for the local page). */
export function listSink(folder: string, limit = 200): SinkEntry[] {
  let files: string[];
  try {
    files = readdirSync(folder).filter((f) => /^[0-9A-Z]{26}\.eml$/.test(f));
  } catch {
    return [];
  }
  return files
    .sort()
    .reverse()
    .slice(0, limit)
    .map((file) => {
      const path = join(folder, file);
      const head = readFileSync(path, 'utf8').split(/\r?\n\r?\n/, 1)[0] ?? '';
      const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
      const header = (name: string) => decodeEncodedWords(new RegExp(`^${name}: (.*)$`, 'mi').exec(unfolded)?.[1] ?? '');
      return { file, size: statSync(path).size, at: statSync(path).mtime.toISOString(), to: header('To'), subject: header('Subject') };
    });
}

/** RFC 2047 encoded words (=?charset?Q|B?…?=) as text, for showing headers we built. */
function decodeEncodedWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_all, charset: string, encoding: string, text: string) => {
      const bytes =
        encoding.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64')
          : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
      try {
        return new TextDecoder(charset).decode(bytes);
      } catch {
        return bytes.toString('utf8');
      }
    });
}

/** One sink message as stored, or null for a name that is not one. */
export function readSink(folder: string, file: string): string | null {
  if (!/^[0-9A-Z]{26}\.eml$/.test(file)) return null;
  try {
    return readFileSync(join(folder, file), 'utf8');
  } catch {
    return null;
  }
}

export interface MailEnvironment {
  smtpUrl: string | null;
  from: string;
}

/** `<PREFIX>_SMTP_URL` and `<PREFIX>_MAIL_FROM`; the From defaults to `fallbackFrom`. */
export function mailEnvironment(prefix: 'INBOX' | 'DIRECTORY', fallbackFrom: string, env: NodeJS.ProcessEnv = process.env): MailEnvironment {
  const smtpUrl = env[`${prefix}_SMTP_URL`] || null;
  const from = env[`${prefix}_MAIL_FROM`] || fallbackFrom;
  return { smtpUrl, from };
}
