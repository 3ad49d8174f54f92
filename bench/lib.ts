/**
 * Shared helpers of the benchmark scripts (docs/performance.md), split by job in bench/lib/. Every
 * `bench/*.ts` but this file and run.ts is a standalone script that `npm run bench` (bench/run.ts)
 * runs as a child process; each prints human lines and one JSON line per result through `emit()`,
 * which run.ts collects.
 *
 * The servers under load always run in CHILD processes (bench/lib/servers.ts), and so does the load
 * generator when it can (bench/lib/load.ts).
 */
export * from "./lib/bodies.js";
export * from "./lib/gateway.js";
export * from "./lib/load.js";
export * from "./lib/probes.js";
export * from "./lib/process.js";
export * from "./lib/receivers.js";
export * from "./lib/report.js";
export * from "./lib/sequential.js";
export * from "./lib/servers.js";
export * from "./lib/starts.js";
export * from "./lib/suite.js";
