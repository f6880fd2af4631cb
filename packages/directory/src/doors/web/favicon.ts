/**
 * The directory's icon: every browser asks for /favicon.ico whatever the page says, so it is served
 * (it answered 404 on every page), and pages name an SVG one. Both are drawn here from one shape (a
 * map pin in the pages' accent colour on white), so nothing binary sits in the repository: the ICO
 * holds one 32×32 32-bit bitmap (BMP inside ICO, which every browser reads).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { answerWithEtag, etagOfText } from '@svc/shared';

const ACCENT = [0x1d, 0x5c, 0x3a] as const;
const SIZE = 32;

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#fff"/><path d="M16 3a9.5 9.5 0 0 0-9.5 9.5C6.5 20 16 29 16 29s9.5-9 9.5-16.5A9.5 9.5 0 0 0 16 3z" fill="#1d5c3a"/><circle cx="16" cy="12.5" r="3.6" fill="#fff"/></svg>`;

/** Whether a pixel centre lies inside the pin: a circle with a point below it, and its hole. */
function inPin(x: number, y: number): 'pin' | 'hole' | 'none' {
  const cx = 16;
  const cy = 12.5;
  const r = 9.5;
  const dx = x - cx;
  const dy = y - cy;
  const d2 = dx * dx + dy * dy;
  if (d2 <= 3.6 * 3.6) return 'hole';
  if (d2 <= r * r) return 'pin';
  // Below the circle: a triangle narrowing to the tip at (16, 29).
  if (y > cy && y <= 29) {
    const half = (r * (29 - y)) / (29 - cy);
    if (Math.abs(dx) <= half) return 'pin';
  }
  return 'none';
}

/** A 32×32 ICO: header, one directory entry, a BITMAPINFOHEADER, BGRA rows bottom-up, an empty AND mask. */
export function faviconIco(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  for (let row = 0; row < SIZE; row++) {
    const y = SIZE - 1 - row + 0.5;
    for (let col = 0; col < SIZE; col++) {
      const at = (row * SIZE + col) * 4;
      const shape = inPin(col + 0.5, y);
      const [r, g, b] = shape === 'pin' ? ACCENT : [0xff, 0xff, 0xff];
      pixels[at] = b;
      pixels[at + 1] = g;
      pixels[at + 2] = r;
      pixels[at + 3] = 0xff;
    }
  }
  const mask = Buffer.alloc((SIZE / 8) * SIZE);
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(SIZE, 4);
  info.writeInt32LE(SIZE * 2, 8);
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  info.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([info, pixels, mask]);
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(1, 4);
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt8(0, 8);
  header.writeUInt8(0, 9);
  header.writeUInt16LE(1, 10);
  header.writeUInt16LE(32, 12);
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(22, 18);
  return Buffer.concat([header, image]);
}

export const FAVICON_ROUTES = ['/favicon.ico', '/favicon.svg'] as const;

/** Serves both icons for a day at a time, with an ETag (304). */
export function installFavicon(app: FastifyInstance, offerReplay: (request: FastifyRequest) => void): void {
  const icons = [
    { path: '/favicon.ico', bytes: faviconIco(), type: 'image/x-icon' },
    { path: '/favicon.svg', bytes: Buffer.from(FAVICON_SVG, 'utf8'), type: 'image/svg+xml' },
  ];
  for (const icon of icons) {
    const etag = etagOfText(icon.bytes);
    app.get(icon.path, async (request, reply) => {
      reply.header('cache-control', 'public, max-age=86400').header('x-content-type-options', 'nosniff').header('vary', 'Accept-Encoding');
      offerReplay(request);
      return answerWithEtag(request, reply, icon.bytes, etag, icon.type);
    });
  }
}
