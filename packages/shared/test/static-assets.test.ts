/**
 * The pages' static files are sent with their own type on every request (static-assets.ts): a
 * browser refuses a stylesheet or a module script under another type (nosniff), whether the answer
 * is plain, compressed for the first time (the compression waits for a thread), compressed again
 * from the kept form (no wait at all), a HEAD, or a 304.
 */
import { createServiceApp, installCompression, serveAssets, staticAsset } from '@svc/shared';
import { describe, expect, it } from 'vitest';

describe('static assets', () => {
  it('carry their type whether sent plain, compressed, compressed again from the kept form, as a HEAD or as a 304', async () => {
    const app = createServiceApp({ logLevel: 'silent', bodyLimitBytes: 1024, problemsBase: 'https://example.test/problems' });
    const script = staticAsset('/assets', 'small.js', 'document.title = "x";\n');
    const style = staticAsset('/assets', 'large.css', `body { color: #222; }\n${'.card { margin: 0 auto; padding: 1rem; }\n'.repeat(60)}`);
    serveAssets(app, [script, style]);
    installCompression(app);

    for (const [asset, type] of [
      [script, 'text/javascript; charset=utf-8'],
      [style, 'text/css; charset=utf-8'],
    ] as const) {
      const answers = [
        await app.inject({ method: 'GET', url: asset.path }),
        await app.inject({ method: 'GET', url: asset.path, headers: { 'accept-encoding': 'br' } }),
        await app.inject({ method: 'GET', url: asset.path, headers: { 'accept-encoding': 'br' } }),
        await app.inject({ method: 'HEAD', url: asset.path }),
      ];
      for (const answer of answers) {
        expect(answer.statusCode, asset.path).toBe(200);
        expect(answer.headers['content-type'], asset.path).toBe(type);
        expect(answer.headers['x-content-type-options']).toBe('nosniff');
      }
      const again = await app.inject({ method: 'GET', url: asset.path, headers: { 'if-none-match': asset.etag } });
      expect(again.statusCode).toBe(304);
    }
    // The large one really was compressed, the second time from the kept form.
    const compressed = await app.inject({ method: 'GET', url: style.path, headers: { 'accept-encoding': 'br' } });
    expect(compressed.headers['content-encoding']).toBe('br');
    await app.close();
  });
});
