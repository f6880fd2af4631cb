/**
 * Builds a typed client from a served OpenAPI document the way a developer would: types from
 * openapi-typescript, calls through openapi-fetch, checked by the TypeScript compiler, then run
 * with tsx against a live server. The folder sits under node_modules/.cache so the program
 * resolves openapi-fetch from the repository's own install.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');

export interface TypedClientFolder {
  dir: string;
  /** tsc --noEmit over the folder: the compiler's output, empty when it compiles. */
  typecheck(): Promise<string>;
  /** Runs client.ts with tsx and answers what it printed on stdout, parsed as JSON. */
  run(env: Record<string, string>): Promise<any>;
  remove(): void;
}

export async function typedClientFolder(doc: unknown, typesFile: string, program: string): Promise<TypedClientFolder> {
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'openapi-client-'));
  const ast = await openapiTS(JSON.parse(JSON.stringify(doc)));
  writeFileSync(join(dir, typesFile), astToString(ast));
  writeFileSync(join(dir, 'client.ts'), program);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      include: ['*.ts'],
    }),
  );
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  return {
    dir,
    async typecheck() {
      try {
        await run(join(ROOT, 'node_modules', '.bin', 'tsc'), ['--noEmit', '-p', join(dir, 'tsconfig.json')], { cwd: dir });
        return '';
      } catch (error) {
        const e = error as { stdout?: string; stderr?: string; message: string };
        return `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message;
      }
    },
    async run(env) {
      const { stdout } = await run(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(dir, 'client.ts')], { cwd: dir, env: { ...process.env, ...env }, timeout: 20_000 });
      return JSON.parse(stdout);
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
