/** @svc/verify: the pure functions a network and its verifier share, and the verifier itself (docs/verifiable-order.md). */
export * from './merkle.js';
export * from './tiles.js';
export * from './note.js';
export * from './checkpoint.js';
export * from './evidence.js';
export * from './reputation.js';
export * from './order.js';
export * from './statement.js';
export { verifyNetwork, hourStart, hourName, type VerifyOptions, type VerifyReport, type Difference, type MemberReputation } from './verifier.js';
