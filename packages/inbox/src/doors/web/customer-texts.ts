/**
 * The words of the customer's page of an item (docs/web.md "The customer's page"), in each language
 * the inbox writes; the Portuguese is typed by the English. Kept apart from the owner app's catalogue.
 */
import type { ItemType } from '../../domain/types.js';

export interface CustomerTexts {
  lang: 'en' | 'pt';
  title: Record<ItemType, string>;
  state: Record<string, string>;
  /** A sentence under the state, for the states that need one. */
  explain: Partial<Record<string, (business: string) => string>>;
  details: { service: string; when: string; duration: (minutes: number) => string; people: string; price: string; total: string; toBeConfirmed: string; subject: string; quote: string; validUntil: string; lines: string; pay: string };
  proposal: { heading: string; lead: (business: string) => string; accept: string };
  conversation: { heading: string; you: string; empty: string };
  reply: { heading: (business: string) => string; label: string; send: string };
  cancel: { heading: Record<ItemType, string>; confirm: Record<ItemType, string>; reason: string; button: Record<ItemType, string>; freeUntil: (when: string) => string; lateAfter: (when: string) => string };
  done: Record<'replied' | 'cancelled' | 'accepted', string>;
  problem: Record<string, string>;
  problemOther: string;
  link: { title: string; wrong: string; missing: string; notFound: string };
  contact: string;
}

export const CUSTOMER_EN: CustomerTexts = {
  lang: 'en',
  title: { booking: 'Your booking', order: 'Your order', quote_request: 'Your request for a quote', message: 'Your conversation', refund: 'Your refund request' },
  state: {
    requested: 'Requested', needs_info: 'Waiting for your details', proposed: 'Another time proposed', confirmed: 'Confirmed', completed: 'Done',
    no_show: 'Missed', cancelled: 'Cancelled', cancelled_late: 'Cancelled (late)', cancelled_by_business: 'Cancelled by the business', declined: 'Declined',
    expired: 'Expired', received: 'Received', accepted: 'Accepted', awaiting_payment: 'Waiting for payment', payment_failed: 'Payment failed', paid: 'Paid',
    fulfilling: 'Being prepared', fulfilled: 'Sent', quoted: 'Quoted', open: 'Open', answered: 'Answered', closed: 'Closed', spam: 'Closed',
    approved: 'Approved', rejected: 'Rejected', refunded: 'Refunded', charged_back: 'Charged back',
  },
  explain: {
    requested: (b) => `${b} has not confirmed it yet: it holds no place until they do. You will get a mail when they answer.`,
    needs_info: (b) => `${b} needs a few more details: answer below.`,
    proposed: (b) => `${b} proposes another time: accept it below, or write to them.`,
    received: (b) => `${b} has it and will answer soon.`,
  },
  details: {
    service: 'Service', when: 'When', duration: (m) => `${m} minutes`, people: 'People', price: 'Price', total: 'Total', toBeConfirmed: 'to be confirmed',
    subject: 'Subject', quote: 'Quote', validUntil: 'Valid until', lines: 'What you ordered', pay: 'Pay',
  },
  proposal: { heading: 'Proposed instead', lead: (b) => `${b} proposes:`, accept: 'Accept this time' },
  conversation: { heading: 'Messages', you: 'You', empty: 'No messages yet.' },
  reply: { heading: (b) => `Write to ${b}`, label: 'Your message', send: 'Send' },
  cancel: {
    heading: { booking: 'Cancel the booking', order: 'Cancel the order', quote_request: 'No longer needed?', message: 'Close the conversation', refund: 'Cancel' },
    confirm: { booking: 'Yes, cancel my booking', order: 'Yes, cancel my order', quote_request: 'Yes, I no longer need this quote', message: 'Yes, close this conversation', refund: 'Yes, cancel' },
    reason: 'Reason (optional)',
    button: { booking: 'Cancel booking', order: 'Cancel order', quote_request: 'Withdraw the request', message: 'Close', refund: 'Cancel' },
    freeUntil: (when) => `You can cancel free of charge until ${when}.`,
    lateAfter: (when) => `After ${when} a cancellation is recorded as late.`,
  },
  done: { replied: 'Your message was sent.', cancelled: 'Done: it is cancelled.', accepted: 'Accepted: your booking is confirmed.' },
  problem: {
    wrong_state: 'That can no longer be done: it has moved on since. Here is how it stands now.',
    guard_failed: 'It is too late to do that here. Please write to the business or call them.',
    slot_taken: 'That time is no longer free. Please write to the business for another.',
    version_conflict: 'This page was out of date; here it is as it stands now. Please try again.',
    invalid_input: 'Please check what you wrote: a message needs some text, and at most 20,000 characters.',
    idempotency_mismatch: 'That form was already sent with something else. Please try again.',
    not_allowed: 'That cannot be done here.',
    confirm: 'Tick the box to confirm, then press the button again.',
    forbidden: 'That form is out of date or came from another site; nothing was changed. Please try again from this page.',
  },
  problemOther: 'Something went wrong; nothing was changed. Please try again.',
  link: {
    title: 'This link does not open a page',
    wrong: 'This link does not open this page. Use the link in the last mail the business sent you.',
    missing: 'This page opens from the link in the mail the business sent you. If you just opened that link, your browser may be refusing cookies from this site.',
    notFound: 'There is no such page.',
  },
  contact: 'Contact',
};

export const CUSTOMER_PT: CustomerTexts = {
  lang: 'pt',
  title: { booking: 'A sua marcação', order: 'A sua encomenda', quote_request: 'O seu pedido de orçamento', message: 'A sua conversa', refund: 'O seu pedido de reembolso' },
  state: {
    requested: 'Pedida', needs_info: 'À espera dos seus detalhes', proposed: 'Outra hora proposta', confirmed: 'Confirmada', completed: 'Concluída',
    no_show: 'Falhada', cancelled: 'Cancelada', cancelled_late: 'Cancelada (tarde)', cancelled_by_business: 'Cancelada pelo negócio', declined: 'Recusada',
    expired: 'Expirada', received: 'Recebida', accepted: 'Aceite', awaiting_payment: 'À espera de pagamento', payment_failed: 'Pagamento falhou', paid: 'Paga',
    fulfilling: 'Em preparação', fulfilled: 'Enviada', quoted: 'Orçamentado', open: 'Aberta', answered: 'Respondida', closed: 'Fechada', spam: 'Fechada',
    approved: 'Aprovado', rejected: 'Recusado', refunded: 'Reembolsado', charged_back: 'Estornada',
  },
  explain: {
    requested: (b) => `${b} ainda não a confirmou: não reserva lugar até confirmar. Receberá um email quando responder.`,
    needs_info: (b) => `${b} precisa de mais alguns detalhes: responda abaixo.`,
    proposed: (b) => `${b} propõe outra hora: aceite abaixo ou escreva-lhe.`,
    received: (b) => `${b} já a recebeu e responderá em breve.`,
  },
  details: {
    service: 'Serviço', when: 'Quando', duration: (m) => `${m} minutos`, people: 'Pessoas', price: 'Preço', total: 'Total', toBeConfirmed: 'a confirmar',
    subject: 'Assunto', quote: 'Orçamento', validUntil: 'Válido até', lines: 'O que encomendou', pay: 'Pagar',
  },
  proposal: { heading: 'Hora proposta', lead: (b) => `${b} propõe:`, accept: 'Aceitar esta hora' },
  conversation: { heading: 'Mensagens', you: 'Você', empty: 'Ainda sem mensagens.' },
  reply: { heading: (b) => `Escrever a ${b}`, label: 'A sua mensagem', send: 'Enviar' },
  cancel: {
    heading: { booking: 'Cancelar a marcação', order: 'Cancelar a encomenda', quote_request: 'Já não precisa?', message: 'Fechar a conversa', refund: 'Cancelar' },
    confirm: { booking: 'Sim, cancelar a minha marcação', order: 'Sim, cancelar a minha encomenda', quote_request: 'Sim, já não preciso deste orçamento', message: 'Sim, fechar esta conversa', refund: 'Sim, cancelar' },
    reason: 'Motivo (opcional)',
    button: { booking: 'Cancelar marcação', order: 'Cancelar encomenda', quote_request: 'Retirar o pedido', message: 'Fechar', refund: 'Cancelar' },
    freeUntil: (when) => `Pode cancelar sem custos até ${when}.`,
    lateAfter: (when) => `Depois de ${when} o cancelamento fica registado como tardio.`,
  },
  done: { replied: 'A sua mensagem foi enviada.', cancelled: 'Feito: está cancelada.', accepted: 'Aceite: a sua marcação está confirmada.' },
  problem: {
    wrong_state: 'Isso já não é possível: entretanto mudou. Eis como está agora.',
    guard_failed: 'Já é tarde para o fazer aqui. Escreva ou telefone ao negócio, por favor.',
    slot_taken: 'Essa hora já não está livre. Escreva ao negócio para combinar outra.',
    version_conflict: 'Esta página estava desatualizada; eis como está agora. Tente de novo.',
    invalid_input: 'Verifique o que escreveu: uma mensagem precisa de texto, com 20 000 caracteres no máximo.',
    idempotency_mismatch: 'Esse formulário já foi enviado com outro conteúdo. Tente de novo.',
    not_allowed: 'Isso não pode ser feito aqui.',
    confirm: 'Marque a caixa para confirmar e carregue de novo no botão.',
    forbidden: 'Esse formulário está desatualizado ou veio de outro site; nada foi alterado. Tente de novo a partir desta página.',
  },
  problemOther: 'Algo correu mal; nada foi alterado. Tente de novo.',
  link: {
    title: 'Esta ligação não abre uma página',
    wrong: 'Esta ligação não abre esta página. Use a ligação do último email que o negócio lhe enviou.',
    missing: 'Esta página abre-se pela ligação do email que o negócio lhe enviou. Se acabou de abrir essa ligação, o seu navegador pode estar a recusar cookies deste site.',
    notFound: 'Esta página não existe.',
  },
  contact: 'Contacto',
};
