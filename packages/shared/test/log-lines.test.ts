/**
 * What a service's log lines may say (docs/http.md): credential headers never, whatever object
 * carries them, and one line per request with its URL's secret values replaced.
 */
import { createServiceApp } from '@svc/shared';
import { describe, expect, it } from 'vitest';

function appWithCapturedLog() {
  const lines: string[] = [];
  const app = createServiceApp({
    logLevel: 'trace',
    bodyLimitBytes: 1024,
    problemsBase: 'https://example.test/problems',
    logStream: { write: (line: string) => void lines.push(line) },
  });
  return { app, lines };
}

describe('service log lines', () => {
  it('never write credential headers, logged as headers, as a request or as a raw req', async () => {
    const { app, lines } = appWithCapturedLog();
    app.log.info({ headers: { authorization: 'Bearer top-secret-1', accept: 'application/json' } }, 'headers');
    app.log.info({ request: { headers: { cookie: 'sid=top-secret-2' } } }, 'request');
    app.log.info({ req: { method: 'GET', url: '/v1/items/x?access_token=top-secret-3', headers: { 'svc-pass': 'top-secret-4' } } }, 'raw req');
    await app.close();

    const text = lines.join('');
    for (const secret of ['top-secret-1', 'top-secret-2', 'top-secret-3', 'top-secret-4']) expect(text).not.toContain(secret);
    const [headers, request, rawReq] = lines.map((line) => JSON.parse(line) as Record<string, any>);
    expect(headers!.headers).toEqual({ authorization: '[redacted]', accept: 'application/json' });
    expect(request!.request.headers.cookie).toBe('[redacted]');
    // A req is what the request serializer keeps of it: no headers at all, the URL masked.
    expect(rawReq!.req).toEqual({ method: 'GET', url: '/v1/items/x?access_token=[redacted]' });
  });

  it('write one line per request, when it is answered, with the secret query values replaced', async () => {
    const { app, lines } = appWithCapturedLog();
    app.get('/hello', async () => ({ ok: true }));
    const answer = await app.inject({ method: 'GET', url: '/hello?token=top-secret-5&q=cafe', headers: { authorization: 'Bearer top-secret-6' } });
    expect(answer.statusCode).toBe(200);
    await app.close();

    const requestLines = lines.map((line) => JSON.parse(line) as Record<string, any>).filter((line) => line.req);
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({ msg: 'request completed', req: { method: 'GET', url: '/hello?token=[redacted]&q=cafe' }, res: { statusCode: 200 } });
    expect(lines.join('')).not.toMatch(/top-secret-[56]/);
  });
});
