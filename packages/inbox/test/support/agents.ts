/**
 * A customer's agent that signs its requests (svc-agent/1) for the tests: its own key in
 * Svc-Agent-Key, or a platform's key published in a key directory served on 127.0.0.1.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateEd25519Key, signAgentRequest, type Ed25519KeyPair } from '@svc/shared';
import type { ApiResponse, TestInbox } from './harness.js';

/** The origin the test inbox knows itself by (harness publicBaseUrl): what signatures cover as @authority. */
export const INBOX_ORIGIN = 'http://127.0.0.1';

export interface SignedCall {
  body?: unknown;
  headers?: Record<string, string>;
  /** Cover these headers too (their values are sent). */
  extraHeaders?: Record<string, string>;
  /** A platform origin: sign as its key (Signature-Agent) instead of sending the key. */
  platform?: string;
  tag?: 'svc-agent' | 'web-bot-auth';
  now?: () => number;
}

export function newAgent(): Ed25519KeyPair {
  return generateEd25519Key();
}

/** Signs and sends one request to the test inbox as `agent`. */
export async function signedRequest(t: TestInbox, agent: Ed25519KeyPair, method: string, path: string, call: SignedCall = {}): Promise<ApiResponse> {
  const body = call.body === undefined ? undefined : JSON.stringify(call.body);
  const signed = signAgentRequest({
    method,
    url: `${INBOX_ORIGIN}${path}`,
    body: body ?? null,
    privateJwk: agent.privateJwk,
    now: call.now ?? (() => t.clock.now()),
    ...(call.platform !== undefined ? { platform: call.platform, tag: call.tag ?? 'web-bot-auth' } : call.tag ? { tag: call.tag } : {}),
    ...(call.extraHeaders ? { extraHeaders: call.extraHeaders } : {}),
  });
  return t.request(method, path, {
    ...(body === undefined ? {} : { rawBody: body }),
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...signed, ...(call.headers ?? {}) },
  });
}

/** A platform publishing its agents' keys at /.well-known/http-message-signatures-directory on 127.0.0.1. */
export async function startPlatform(keys: Ed25519KeyPair[]): Promise<{ origin: string; fetches: () => number; close(): Promise<void> }> {
  let fetches = 0;
  const server: Server = createServer((request, response) => {
    if (request.url === '/.well-known/http-message-signatures-directory') {
      fetches += 1;
      response.writeHead(200, { 'content-type': 'application/http-message-signatures-directory+json' });
      response.end(JSON.stringify({ keys: keys.map((k) => k.publicJwk) }));
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, fetches: () => fetches, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
