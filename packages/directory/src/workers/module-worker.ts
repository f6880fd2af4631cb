/**
 * Starts a worker thread on one of this package's modules, from its compiled JavaScript or, when the
 * caller runs from source (vitest, tsx), from its TypeScript source.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/** The module `name` (without extension) beside `from`: `.ts` when `from` is TypeScript source, else `.js`. */
export function siblingModule(name: string, from: string): URL {
  return new URL(`./${name}${from.endsWith('.ts') ? '.ts' : '.js'}`, from);
}

export function startModuleWorker(module: URL, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  const options = { workerData, ...(resourceLimits ? { resourceLimits } : {}) };
  return module.pathname.endsWith('.ts') ? new Worker(sourceBootstrap(module), { eval: true, ...options }) : new Worker(module, options);
}

/**
 * Running from source (vitest, tsx), a worker does not inherit the runner's TypeScript loader (not
 * even through execArgv on Node 20): it registers tsx's loader itself, then loads the worker's module.
 */
function sourceBootstrap(module: URL): string {
  const tsxApi = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs')).href;
  return `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(module.href)}); });`;
}
