/**
 * The words of the mail and push notices, in each language the inbox writes (docs/mail.md). The
 * Portuguese is typed by the English, so a notice missing in one does not compile. Values are
 * filled in by notices.ts and owner-notices.ts; nothing here formats times or money.
 */
import type { ItemType } from '../types.js';
import type { ReaderLanguage } from './reader-language.js';

export interface NoticeTexts {
  hello(name: string | undefined): string;
  /** What an item is, for a sentence ("your booking: Haircut, Friday 4 December, 11:00"). */
  yourItem(type: ItemType, detail: string | null): string;
  customer: {
    reply: { subject(business: string): string; lead(business: string): string };
    confirmed: { subject(business: string): string; lead(business: string, what: string): string };
    declined: { subject(business: string, type: ItemType): string; lead(business: string, what: string): string };
    quote: { subject(business: string): string; lead(business: string, total: string, until: string): string };
    payment_request: { subject(business: string): string; lead(business: string, total: string, what: string): string; payHere: string };
    proposed: { subject(business: string): string; lead(business: string, when: string, what: string): string };
    info_requested: { subject(business: string): string; lead(business: string, what: string): string };
    cancelled_by_business: { subject(business: string): string; lead(business: string, what: string): string };
    reminder: { subject(business: string, when: string): string; lead(business: string, detail: string): string; cancelUntil(when: string): string };
    toBeConfirmed: string;
    /** The line with the link to the item's page. */
    pageLink: string;
    replyHint: string;
  };
  owner: {
    kind: Record<'new' | 'message' | 'payment' | 'cancelled' | 'answered', (type: ItemType) => string>;
    subjectOne(business: string, headline: string): string;
    subjectMany(business: string, count: number): string;
    lead(count: number): string;
    open: string;
    settingsHint: string;
    pushMany(count: number): string;
  };
}

const TYPE_EN: Record<ItemType, string> = { booking: 'booking', order: 'order', quote_request: 'request for a quote', message: 'message', refund: 'refund request' };
const REQUEST_EN: Record<ItemType, string> = { booking: 'New booking request', order: 'New order', quote_request: 'New request for a quote', message: 'New message', refund: 'New refund request' };

export const NOTICE_TEXTS_EN: NoticeTexts = {
  hello: (name) => (name ? `Hello ${name},` : 'Hello,'),
  yourItem: (type, detail) => `your ${TYPE_EN[type]}${detail ? `: ${detail}` : ''}`,
  customer: {
    reply: { subject: (b) => `${b} replied to you`, lead: (b) => `${b} wrote:` },
    confirmed: { subject: (b) => `${b}: your booking is confirmed`, lead: (b, what) => `${b} confirmed ${what}.` },
    declined: {
      subject: (b, type) => `${b}: your ${TYPE_EN[type]} could not be taken`,
      lead: (b, what) => `${b} could not take ${what}.`,
    },
    quote: { subject: (b) => `${b}: your quote`, lead: (b, total, until) => `${b} quoted ${total}, valid until ${until}.` },
    payment_request: {
      subject: (b) => `${b}: payment requested`,
      lead: (b, total, what) => `${b} asks for payment of ${total} for ${what}.`,
      payHere: 'Pay here:',
    },
    proposed: {
      subject: (b) => `${b} proposes another time`,
      lead: (b, when, what) => `${b} cannot take ${what} at that time and proposes ${when} instead. Accept it or answer on the page below.`,
    },
    info_requested: { subject: (b) => `${b} needs a few details`, lead: (b, what) => `${b} needs a few more details about ${what}.` },
    cancelled_by_business: { subject: (b) => `${b} cancelled your booking`, lead: (b, what) => `${b} had to cancel ${what}.` },
    reminder: {
      subject: (b, when) => `Reminder: ${b}, ${when}`,
      lead: (b, detail) => `A reminder of your booking at ${b}: ${detail}.`,
      cancelUntil: (when) => `Can't come? You can cancel free of charge until ${when}.`,
    },
    toBeConfirmed: 'a price to be confirmed',
    pageLink: 'See it, write to us or cancel it here:',
    replyHint: 'You can also reply to this mail.',
  },
  owner: {
    kind: {
      new: (type) => REQUEST_EN[type],
      message: (type) => `New message on a ${TYPE_EN[type]}`,
      payment: () => 'Payment news on an order',
      cancelled: (type) => `A customer cancelled a ${TYPE_EN[type]}`,
      answered: (type) => `A customer answered on a ${TYPE_EN[type]}`,
    },
    subjectOne: (b, headline) => `${b}: ${headline}`,
    subjectMany: (b, count) => `${b}: ${count} new things in your inbox`,
    lead: (count) => (count === 1 ? 'This needs you:' : `These ${count} need you:`),
    open: 'Open the inbox:',
    settingsHint: 'These notices go to the address in Setup › Notifications.',
    pushMany: (count) => `${count} new things in your inbox`,
  },
};

const TYPE_PT: Record<ItemType, string> = { booking: 'marcação', order: 'encomenda', quote_request: 'pedido de orçamento', message: 'mensagem', refund: 'pedido de reembolso' };
const YOUR_PT: Record<ItemType, string> = { booking: 'a sua marcação', order: 'a sua encomenda', quote_request: 'o seu pedido de orçamento', message: 'a sua mensagem', refund: 'o seu pedido de reembolso' };
const REQUEST_PT: Record<ItemType, string> = { booking: 'Novo pedido de marcação', order: 'Nova encomenda', quote_request: 'Novo pedido de orçamento', message: 'Nova mensagem', refund: 'Novo pedido de reembolso' };
const ONE_PT: Record<ItemType, string> = { booking: 'uma marcação', order: 'uma encomenda', quote_request: 'um pedido de orçamento', message: 'uma mensagem', refund: 'um pedido de reembolso' };

export const NOTICE_TEXTS_PT: NoticeTexts = {
  hello: (name) => (name ? `Olá ${name},` : 'Olá,'),
  yourItem: (type, detail) => `${YOUR_PT[type]}${detail ? `: ${detail}` : ''}`,
  customer: {
    reply: { subject: (b) => `${b} respondeu-lhe`, lead: (b) => `${b} escreveu:` },
    confirmed: { subject: (b) => `${b}: a sua marcação está confirmada`, lead: (b, what) => `${b} confirmou ${what}.` },
    declined: {
      subject: (b, type) => `${b}: não foi possível aceitar ${type === 'order' ? 'a sua encomenda' : type === 'booking' ? 'a sua marcação' : `o seu ${TYPE_PT[type]}`}`,
      lead: (b, what) => `${b} não pôde aceitar ${what}.`,
    },
    quote: { subject: (b) => `${b}: o seu orçamento`, lead: (b, total, until) => `${b} orçamentou ${total}, válido até ${until}.` },
    payment_request: {
      subject: (b) => `${b}: pedido de pagamento`,
      lead: (b, total, what) => `${b} pede o pagamento de ${total} por ${what}.`,
      payHere: 'Pague aqui:',
    },
    proposed: {
      subject: (b) => `${b} propõe outra hora`,
      lead: (b, when, what) => `${b} não pode receber ${what} a essa hora e propõe ${when}. Aceite ou responda na página abaixo.`,
    },
    info_requested: { subject: (b) => `${b} precisa de alguns detalhes`, lead: (b, what) => `${b} precisa de mais alguns detalhes sobre ${what}.` },
    cancelled_by_business: { subject: (b) => `${b} cancelou a sua marcação`, lead: (b, what) => `${b} teve de cancelar ${what}.` },
    reminder: {
      subject: (b, when) => `Lembrete: ${b}, ${when}`,
      lead: (b, detail) => `Lembramos a sua marcação em ${b}: ${detail}.`,
      cancelUntil: (when) => `Não pode vir? Pode cancelar sem custos até ${when}.`,
    },
    toBeConfirmed: 'um preço a confirmar',
    pageLink: 'Veja, escreva-nos ou cancele aqui:',
    replyHint: 'Também pode responder a este email.',
  },
  owner: {
    kind: {
      new: (type) => REQUEST_PT[type],
      message: (type) => `Nova mensagem n${type === 'order' || type === 'booking' || type === 'message' ? 'a' : 'o'} ${TYPE_PT[type]}`,
      payment: () => 'Novidades de pagamento numa encomenda',
      cancelled: (type) => `Um cliente cancelou ${ONE_PT[type]}`,
      answered: (type) => `Um cliente respondeu n${ONE_PT[type]}`,
    },
    subjectOne: (b, headline) => `${b}: ${headline}`,
    subjectMany: (b, count) => `${b}: ${count} novidades na sua caixa`,
    lead: (count) => (count === 1 ? 'Isto precisa de si:' : `Estas ${count} precisam de si:`),
    open: 'Abrir a caixa:',
    settingsHint: 'Estes avisos vão para o endereço em Configuração › Notificações.',
    pushMany: (count) => `${count} novidades na sua caixa`,
  },
};

export function noticeTexts(lang: ReaderLanguage): NoticeTexts {
  return lang === 'pt' ? NOTICE_TEXTS_PT : NOTICE_TEXTS_EN;
}
