/**
 * What a service's log lines may say (docs/http.md): credential headers never, whatever object
 * carries them, and one line per request with its URL's secret values replaced.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createServiceApp } from '@svc/shared';
import { describe, expect, it } from 'vitest';

function appWithCapturedLog(logLevel = 'trace') {
  const lines: string[] = [];
  const app = createServiceApp({
    logLevel,
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

  it('write the request line with the fields, order and masking of pino\'s own lines', async () => {
    const { app, lines } = appWithCapturedLog();
    app.get('/items/:id', async () => ({ ok: true }));
    app.log.info({ req: { method: 'GET', url: '/x', host: 'h', remoteAddress: '127.0.0.1', remotePort: 1 } }, 'by pino');
    const answer = await app.inject({ method: 'GET', url: '/items/svc_tok_top-secret-7?q=caf%C3%A9%22', headers: { host: 'inbox.test' } });
    expect(answer.statusCode).toBe(200);
    await app.close();

    const [byPino, requestLine] = lines.map((line) => JSON.parse(line) as Record<string, any>);
    expect(Object.keys(requestLine!)).toEqual(['level', 'time', 'pid', 'hostname', 'reqId', 'req', 'res', 'responseTime', 'msg']);
    // The same base fields as pino's lines, in the same places.
    expect(Object.keys(byPino!).slice(0, 4)).toEqual(['level', 'time', 'pid', 'hostname']);
    expect(requestLine).toMatchObject({ level: 30, pid: byPino!.pid, hostname: byPino!.hostname, reqId: expect.stringMatching(/^req-/), res: { statusCode: 200 }, msg: 'request completed' });
    expect(requestLine!.req).toEqual({ method: 'GET', url: '/items/svc_tok_[redacted]?q=caf%C3%A9%22', host: 'inbox.test', remoteAddress: '127.0.0.1' });
    expect(requestLine!.responseTime).toBeGreaterThanOrEqual(0);
    expect(Math.abs(requestLine!.time - Date.now())).toBeLessThan(10_000);
    expect(lines.join('')).not.toContain('top-secret-7');
  });

  it('write no request line above the info level', async () => {
    const { app, lines } = appWithCapturedLog('warn');
    app.get('/hello', async () => ({ ok: true }));
    expect((await app.inject({ method: 'GET', url: '/hello' })).statusCode).toBe(200);
    await app.close();
    expect(lines).toEqual([]);
  });

  it('reach standard output, every line, in order, when the process ends', () => {
    const child = spawnSync(process.execPath, [fileURLToPath(new URL('./log-lines-child.mjs', import.meta.url)), '250'], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'info' } });
    expect(child.status).toBe(0);
    const lines = child.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
    const requestLines = lines.filter((line) => line.msg === 'request completed');
    expect(requestLines.map((line) => line.req.url)).toEqual(Array.from({ length: 250 }, (_, n) => `/n/${n}`));
    // pino's own lines go through the same gathering, in their place among the request lines.
    expect(lines.at(-1)).toMatchObject({ msg: 'last words' });
  });
});
