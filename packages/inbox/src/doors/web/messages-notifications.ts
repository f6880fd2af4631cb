/**
 * The owner app's words for notifications (Setup › Notifications, the push button, the title's
 * count), in English and Portuguese; kept apart from messages-en.ts and messages-pt.ts.
 */
import type { AppLanguage } from './app-kit.js';

const EN = {
  section: 'Notifications',
  mailHeading: 'By mail',
  ownerEmail: 'Send notices to this address',
  ownerEmailHelp: 'New requests, customers’ messages, cancellations and payments. Several within half a minute come in one mail. Leave it empty for none.',
  reminders: 'Remind customers by mail the day before a confirmed booking',
  pushHeading: 'On this device',
  pushIntro: 'Your phone or computer shows a notice as soon as something needs you, even with the app closed.',
  pushButton: 'Turn on notifications on this device',
  pushUnavailable: 'This browser cannot show notifications from the app (it needs a browser with push notifications, and the page’s script).',
  pushDenied: 'The browser was not allowed to show notifications. Allow them in its site settings, then try again.',
  pushFailed: 'Notifications could not be turned on. Try again.',
  pushOn: 'Notifications are on for this device.',
  devicesHeading: 'Devices that get notices',
  noDevices: 'No device yet.',
  lastSent: 'Last sent',
  lastError: 'Last error',
  since: 'Since',
  remove: 'Stop notices',
  device: 'Device',
  /** The tab title's count: "(3) Inbox". */
  waiting: (count: number) => (count === 1 ? '1 waits for you' : `${count} wait for you`),
};

export type NotificationTexts = typeof EN;

const PT: NotificationTexts = {
  section: 'Notificações',
  mailHeading: 'Por email',
  ownerEmail: 'Enviar avisos para este endereço',
  ownerEmailHelp: 'Novos pedidos, mensagens de clientes, cancelamentos e pagamentos. Vários em meio minuto chegam num só email. Deixe vazio para nenhum.',
  reminders: 'Lembrar os clientes por email na véspera de uma marcação confirmada',
  pushHeading: 'Neste aparelho',
  pushIntro: 'O seu telemóvel ou computador mostra um aviso assim que algo precisa de si, mesmo com a app fechada.',
  pushButton: 'Ligar notificações neste aparelho',
  pushUnavailable: 'Este navegador não consegue mostrar notificações da app (precisa de um navegador com notificações push e do script da página).',
  pushDenied: 'O navegador não tem permissão para mostrar notificações. Permita-as nas definições do site e tente de novo.',
  pushFailed: 'Não foi possível ligar as notificações. Tente de novo.',
  pushOn: 'As notificações estão ligadas neste aparelho.',
  devicesHeading: 'Aparelhos que recebem avisos',
  noDevices: 'Nenhum aparelho ainda.',
  lastSent: 'Último envio',
  lastError: 'Último erro',
  since: 'Desde',
  remove: 'Parar avisos',
  device: 'Aparelho',
  waiting: (count: number) => (count === 1 ? '1 à sua espera' : `${count} à sua espera`),
};

export function notificationTexts(lang: AppLanguage): NotificationTexts {
  return lang === 'pt' ? PT : EN;
}
