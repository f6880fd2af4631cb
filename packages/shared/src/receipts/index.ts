export * from './compact-jws.js';
export * from './receipt-format.js';
