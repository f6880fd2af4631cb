export * from './outbound-mail.js';
export * from './sink-page.js';
