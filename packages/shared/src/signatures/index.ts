export * from './ed25519-keys.js';
export * from './content-digest.js';
export * from './message-signatures.js';
export * from './replay-store.js';
export * from './instance-profile.js';
export * from './instance-keys.js';
export * from './signature-problems.js';
export * from './agent-profile.js';
