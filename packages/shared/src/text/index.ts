/**
 * Text helpers on their own (`@svc/shared/text`), for code that runs where the whole shared package
 * would cost too much: an answer worker importing `@svc/shared` held ~17 MB of HTTP, MCP and
 * signature modules in its heap for one function.
 */
export * from './fold.js';
export * from './unsafe-text.js';
