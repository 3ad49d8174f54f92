/**
 * Starts a worker thread whose code is a TypeScript module of src/. Built, the module is its own
 * bundle beside the server's (scripts/build.mjs: `built`, e.g. dist/report-worker.js), started as
 * a file; from src/ (tsx, vitest) it is the TypeScript file itself (`source`), loaded through
 * tsx's hooks registered first in the thread. Paths are relative to `here`, the caller's
 * `import.meta.url` (the bundle's, once built).
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";

/** From src/: registers tsx in the thread, then loads the worker's TypeScript. */
const BOOT = `
const { workerData } = require("node:worker_threads");
(async () => {
  (await import(workerData.__tsx)).register();
  await import(workerData.__entry);
})();
`;

export function startWorker(
  here: string,
  files: { built: string; source: string },
  options: WorkerOptions & { workerData: Record<string, unknown> },
): Worker {
  if (!here.endsWith(".ts")) return new Worker(new URL(files.built, here), options);
  const api = createRequire(here).resolve("tsx/esm/api");
  const __tsx = pathToFileURL(join(dirname(api), "index.mjs")).href;
  const __entry = new URL(files.source, here).href;
  return new Worker(BOOT, { ...options, eval: true, workerData: { ...options.workerData, __tsx, __entry } });
}
