/** Requests Node cannot parse still get a problem document, not a bare framework error. */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInbox, type TestInbox } from './support/harness.js';

let t: TestInbox;
beforeAll(async () => {
  t = await startInbox({ seed: false });
});
afterAll(async () => t.close());

function rawExchange(request: string): Promise<string> {
  const { hostname, port } = new URL(t.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('unparseable requests', () => {
  it('answer 400 with an RFC 9457 problem document and close', async () => {
    const answer = await rawExchange('GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/content-type: application\/problem\+json/i);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({ status: 400, code: 'bad_request' });
    expect(body.type).toMatch(/\/problems\/bad_request$/);
  });

  it('answer 431 when the headers are too large', async () => {
    const answer = await rawExchange(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 431, code: 'bad_request' });
  });
});
