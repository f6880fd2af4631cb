/**
 * A push service on 127.0.0.1 for the push tests, and a browser's side of RFC 8291 written here on
 * node:crypto alone (not the web-push library the inbox sends with): the subscription's P-256 key
 * pair and auth secret, and the decryption of an aes128gcm message (RFC 8188) sent to it.
 */
import { createECDH, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PushArrival {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export async function startPushService(): Promise<{ origin: string; arrivals: PushArrival[]; answerWith(status: number): void; close(): Promise<void> }> {
  const arrivals: PushArrival[] = [];
  let status = 201;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      arrivals.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    arrivals,
    answerWith: (next) => {
      status = next;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A browser's push keys: what PushSubscription.toJSON() gives as keys, and what it needs to read a message. */
export function browserKeys(): { p256dh: string; auth: string; decrypt(body: Buffer): Buffer } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const uaPublic = ecdh.getPublicKey();
  const authSecret = randomBytes(16);
  return {
    p256dh: uaPublic.toString('base64url'),
    auth: authSecret.toString('base64url'),
    decrypt(body: Buffer): Buffer {
      // RFC 8188 §2.1 header: salt (16) | record size (4) | idlen (1) | keyid (the sender's public key, RFC 8291 §4).
      const salt = body.subarray(0, 16);
      const recordSize = body.readUInt32BE(16);
      const idLength = body[20] as number;
      const asPublic = body.subarray(21, 21 + idLength);
      const records = body.subarray(21 + idLength);
      if (records.length > recordSize) throw new Error('more than one record');
      // RFC 8291 §3.3–3.4: the input keying material from the shared secret and the auth secret.
      const shared = ecdh.computeSecret(asPublic);
      const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
      const ikm = Buffer.from(hkdfSync('sha256', shared, authSecret, keyInfo, 32));
      // RFC 8188 §2.2–2.3: the content encryption key and the nonce.
      const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
      const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
      const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
      decipher.setAuthTag(records.subarray(records.length - 16));
      const padded = Buffer.concat([decipher.update(records.subarray(0, records.length - 16)), decipher.final()]);
      // The last record ends with the delimiter 2, then zeros (RFC 8188 §2).
      let end = padded.length - 1;
      while (end >= 0 && padded[end] === 0) end--;
      if (padded[end] !== 2) throw new Error('not the last record');
      return padded.subarray(0, end);
    },
  };
}
