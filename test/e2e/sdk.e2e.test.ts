/**
 * A client generated from the served /openapi.json by a real generator (@hey-api/openapi-ts, its fetch
 * client, zod schemas and SDK with response validation), as docs/api.md#generating-a-client shows;
 * test/sdk/flow.ts, a merchant's integration written against it, type-checks under strict tsc with no
 * cast and no `unknown` in what it reads, then drives every operation of the document on a real server
 * (errors included), with a real receiver typing and verifying each webhook by the generated types.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "@hey-api/openapi-ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, type RunningServer, startServer } from "../helpers/server.js";

const ADMIN = "sdk-admin-token";
const SDK = join(ROOT, "test/sdk");
const OUT = join(SDK, "generated");

let server: RunningServer;
// biome-ignore lint/suspicious/noExplicitAny: a JSON document walked by known paths
let doc: any;
const took: Record<string, number> = {};

/** The generator's options, as docs/api.md#generating-a-client gives them. */
const PLUGINS = [
  "@hey-api/client-fetch",
  "zod",
  { name: "@hey-api/sdk", validator: { request: false, response: true } },
] as const;

beforeAll(async () => {
  server = await startServer({ args: ["--admin-token", ADMIN] });
  doc = await (await fetch(`${server.url}/openapi.json`)).json();
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const input = join(OUT, "openapi.json");
  writeFileSync(input, JSON.stringify(doc));
  const t = performance.now();
  await createClient({ input, output: { path: OUT }, logs: { level: "silent" }, plugins: [...PLUGINS] });
  took.generate = performance.now() - t;
}, 180_000);

afterAll(async () => {
  await server?.stop();
  console.log(`sdk: generate ${Math.round(took.generate ?? 0)} ms, tsc ${Math.round(took.tsc ?? 0)} ms`);
});

describe("a client generated from /openapi.json", () => {
  it("type-checks with the flow under strict tsc: no cast, no unknown in what the flow reads", () => {
    const t = performance.now();
    const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(SDK, "tsconfig.json")], {
      encoding: "utf8",
    });
    took.tsc = performance.now() - t;
    expect(tsc.stdout + tsc.stderr, "tsc output").toBe("");
    expect(tsc.status).toBe(0);
  }, 240_000);

  it("drives every operation of the document, and types every webhook a real receiver gets", async () => {
    // not a literal: the root type-check does not follow it into the generated files (the test above checks them)
    const flow = "../sdk/flow.js";
    const { runFlow, startReceiver } = await import(flow);
    const receiver = await startReceiver();
    try {
      const called = await runFlow(server.url, ADMIN, receiver);
      const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops as object).map((method) => `${method.toUpperCase()} ${path}`),
      );
      expect(operations.length).toBeGreaterThan(40);
      expect(operations.filter((o) => !called.has(o))).toEqual([]);
      // every callback kind of the document's webhooks arrived, typed by its generated schema and signed
      await expect.poll(() => new Set(receiver.hooks.map((h: { kind: string }) => h.kind)).size, { timeout: 20_000 }).toBe(6);
      expect(new Set(receiver.hooks.map((h: { kind: string }) => h.kind))).toEqual(new Set(Object.keys(doc.webhooks)));
      expect(receiver.problems).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 180_000);
});
