/**
 * `paysandbox run --target` at a file's end (docs/run.md): the work due is run before its sandbox
 * is deleted, so a file whose last step makes a payment gets its webhook delivered and answered.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { afterEach, describe, expect, it } from "vitest";
import { loadScenarioFile } from "../../src/runner/load.js";
import { runFiles } from "../../src/runner/run.js";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { payment, START, scenarioFile } from "./runner.support.js";

let s: TestServer | undefined;
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await s?.close();
  s = undefined;
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("paysandbox run --target: teardown", () => {
  it("a file whose last step is a payment: the due work runs before the DELETE, and the webhook is delivered and answered", async () => {
    s = makeServer();
    const seen: string[] = [];
    const listener = getRequestListener((req: Request) => {
      seen.push(`${req.method} ${new URL(req.url).pathname}`);
      return (s as TestServer).server.fetch(req);
    });
    const target = await listen(createServer(listener));
    // the shop's own receiver, slow to answer (it waits; the sandbox does not)
    const answered: string[] = [];
    const shop = await listen(
      createServer((req, res) => {
        req.resume();
        req.on("end", () => setTimeout(() => res.end("ok", () => answered.push(req.url ?? "")), 300));
      }),
    );
    const loaded = loadScenarioFile(
      scenarioFile({
        name: "pay-last",
        startTime: START,
        steps: [
          {
            request: "POST /api/v1/payments/card",
            body: payment({ callbackUrl: `${shop}/hooks` }),
            expect: { body: { transactionStatus: "SUCCEED" } },
          },
        ],
      }),
    );
    if (!loaded.ok) throw new Error(loaded.message);
    const [result] = await runFiles([loaded.loaded], { target });
    expect(result?.steps.map((r) => r.status)).toEqual(["passed"]);
    expect(answered).toEqual(["/hooks?paymentMethod=card"]);
    const pay = seen.findIndex((l) => l.endsWith("/api/v1/payments/card"));
    const advance = seen.findIndex((l, i) => i > pay && l.startsWith("POST ") && l.endsWith("/_sandbox/clock/advance"));
    const del = seen.findIndex((l) => l.startsWith("DELETE /_sandbox/sandboxes/"));
    expect(pay).toBeGreaterThan(-1);
    expect(advance).toBeGreaterThan(pay);
    expect(del).toBeGreaterThan(advance);
  });
});
