/**
 * Snapshots in `paysandbox/testing` (docs/snapshots.md): `connectSandbox(url, {from})` forks a sandbox
 * of a running server, `connectSandbox(url, {snapshot})` and `startSandbox({snapshot})` start from a
 * snapshot given as a file path or as its bytes; each copy holds the world, changes only itself,
 * and `reset({snapshot: true})` brings it back. Bad options throw before anything is created.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getRequestListener } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectSandbox, startSandbox, type TestSandbox } from "../../src/testing/index.js";
import { makeServer, T0, type TestServer } from "../helpers/harness.js";
import { alter, imageOf, resign } from "../helpers/snapshot-damage.js";
import { cardPaymentBody } from "./payments.body.js";

let server: TestServer;
let url: string;
let stopHttp: () => Promise<void>;
let world: TestSandbox;
let orderId: string;

async function call(sandbox: TestSandbox, method: string, path: string, body?: unknown) {
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: await sandbox.auth() },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const statusOf = async (sandbox: TestSandbox) =>
  (await call(sandbox, "GET", `/api/v1/payments/card/status/${orderId}`)).body.transactionStatus;
const refundAll = (sandbox: TestSandbox) =>
  call(sandbox, "POST", "/v1/refunds/card", {
    requestId: crypto.randomUUID(),
    mid: sandbox.merchant.mid,
    transactionId: orderId,
    amount: "20.50",
    reason: "test",
  });

beforeAll(async () => {
  server = makeServer();
  const http = createServer(getRequestListener(server.server.fetch));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  stopHttp = () => new Promise((resolve) => http.close(() => resolve()));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  // the baseUrls it hands out name where it listens (the harness's publicUrl is read at each call)
  server.server.root.config.publicUrl = url;
  world = await connectSandbox(url, { name: "world" });
  const paid = await call(world, "POST", "/api/v1/payments/card", cardPaymentBody({ amount: "20.50" }));
  expect(paid.body.transactionStatus).toBe("SUCCEED");
  orderId = String(paid.body.transactionId);
});
afterAll(async () => {
  await world?.close();
  await stopHttp?.();
  await server?.close();
});

describe("connectSandbox(url, {from | snapshot})", () => {
  it("{from: id} forks the world: the copy has its order, changes only itself, and reset({snapshot: true}) brings it back", async () => {
    expect(world.id).toMatch(/^sbx_/);
    const fork = await connectSandbox(url, { from: world.id, name: "fork" });
    try {
      expect(fork.id).not.toBe(world.id);
      expect(fork.url).toContain(`/sandboxes/${fork.id}`);
      // the server's own clocks (the handles' mirrors run on real time, the harness's wall clock stands still)
      const nowOf = async (s: TestSandbox) => (await (await fetch(`${s.url}/_sandbox/clock`)).json()).now;
      expect(await nowOf(fork)).toBe(await nowOf(world));
      expect(await statusOf(fork)).toBe("SUCCEED");
      expect((await refundAll(fork)).body.transactionStatus).toBe("PENDING");
      // the world still has the whole order to refund: a refund there too is accepted
      const again = await connectSandbox(url, { from: world.id });
      expect((await refundAll(again)).body.transactionStatus).toBe("PENDING");
      await again.close();
      // the fork's own refund is gone after a reset to what it was made from
      await fork.reset({ snapshot: true });
      expect((await refundAll(fork)).body.transactionStatus).toBe("PENDING");
    } finally {
      await fork.close();
    }
    expect((await server.http.get(`/_sandbox/sandboxes/${fork.id}`)).status).toBe(404);
  });

  it('{from: "root"} forks the root', async () => {
    const fork = await connectSandbox(url, { from: "root" });
    expect(fork.url).toContain(`/sandboxes/${fork.id}`);
    await fork.close();
  });

  it("{snapshot} as bytes and as a file path: a sandbox holding the world, with its own id", async () => {
    const bytes = await world.snapshot();
    expect(bytes.subarray(0, 8).toString("latin1")).toBe("PAYSBXSN");
    const file = join(mkdtempSync(join(tmpdir(), "paysandbox-testing-snapshot-")), "world.snapshot");
    writeFileSync(file, bytes);
    for (const snapshot of [bytes, new Uint8Array(bytes), file]) {
      const copy = await connectSandbox(url, { snapshot, name: "copy", ttl: "PT5M" });
      try {
        expect(copy.id).not.toBe(world.id);
        expect(await statusOf(copy)).toBe("SUCCEED");
      } finally {
        await copy.close();
      }
    }
  });

  it("bad options throw before anything is created", async () => {
    const before = (await server.http.get("/_sandbox/sandboxes")).body.length;
    await expect(connectSandbox(url, { from: world.id, scenario: { name: "x" } })).rejects.toThrow(
      "connectSandbox: scenario: not with from",
    );
    await expect(connectSandbox(url, { snapshot: Buffer.from("x"), startTime: "2026-01-01T00:00:00Z" })).rejects.toThrow(
      "connectSandbox: startTime: not with snapshot",
    );
    await expect(connectSandbox(url, { from: world.id, snapshot: Buffer.from("x") })).rejects.toThrow(
      "connectSandbox: snapshot: not with from",
    );
    await expect(connectSandbox(url, { snapshot: "/nonexistent/world.snapshot" })).rejects.toThrow(
      "connectSandbox: snapshot: cannot read /nonexistent/world.snapshot: no such file",
    );
    await expect(connectSandbox(url, { snapshot: 42 as unknown as string })).rejects.toThrow(
      "connectSandbox: snapshot: expected a file path or the file's bytes",
    );
    expect((await server.http.get("/_sandbox/sandboxes")).body.length).toBe(before);
  });

  it("a server's refusal says why: a damaged snapshot, an unknown from", async () => {
    await expect(connectSandbox(url, { snapshot: Buffer.from("not a snapshot") })).rejects.toThrow(
      /answered 400: Invalid snapshot: not a paysandbox snapshot/,
    );
    // its database changed and its checksum made right again (docs/snapshots.md#what-a-load-checks)
    const file = await world.snapshot();
    const before = (await server.http.get("/_sandbox/sandboxes")).body.length;
    const damaged = resign(
      file,
      alter(imageOf(file), (db) => db.exec("UPDATE sandbox_state SET value = 'soon' WHERE key = 'clock_now_ms'")),
    );
    await expect(connectSandbox(url, { snapshot: damaged })).rejects.toThrow(
      /answered 400: Invalid snapshot: damaged \(sandbox_state, row \d+: value is not the clock's now/,
    );
    expect((await server.http.get("/_sandbox/sandboxes")).body.length).toBe(before);
    // the server's 404 names the field: not mistaken for a server without sandboxes
    await expect(connectSandbox(url, { from: "sbx_unknown0000000000" })).rejects.toThrow(
      /answered 404: Invalid field: from \(sandbox not found: sbx_unknown0000000000\)/,
    );
  });
});

describe("startSandbox({snapshot})", () => {
  it("in this process, from the world's bytes: its order, its clock at the world's now, its own webhooks", async () => {
    const sandbox = await startSandbox({ snapshot: await world.snapshot() });
    try {
      expect(sandbox.id).toMatch(/^sbx_/);
      expect(Date.parse(sandbox.clock.now())).toBeGreaterThanOrEqual(T0);
      expect(await statusOf(sandbox)).toBe("SUCCEED");
      const paid = await call(
        sandbox,
        "POST",
        "/api/v1/payments/card",
        cardPaymentBody({ callbackUrl: `${sandbox.webhooks.url}/cb` }),
      );
      expect(paid.status).toBe(200);
      const hook = await sandbox.webhooks.waitFor((h) => h.body.transactionId === paid.body.transactionId);
      expect(hook.body.transactionStatus).toBe("SUCCEED");
      expect((await refundAll(sandbox)).body.transactionStatus).toBe("PENDING");
      await sandbox.reset({ snapshot: true });
      expect((await refundAll(sandbox)).body.transactionStatus).toBe("PENDING");
    } finally {
      await sandbox.close();
    }
  });

  it("from a file path; scenario or startTime beside it, or a missing file, throw", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "paysandbox-testing-snapshot-")), "world.snapshot");
    writeFileSync(file, await world.snapshot());
    const sandbox = await startSandbox({ snapshot: file });
    expect(await statusOf(sandbox)).toBe("SUCCEED");
    await sandbox.close();
    await expect(startSandbox({ snapshot: file, scenario: { name: "x" } })).rejects.toThrow(
      "startSandbox: scenario: not with snapshot",
    );
    await expect(startSandbox({ snapshot: file, startTime: "2026-01-01T00:00:00Z" })).rejects.toThrow(
      "startSandbox: startTime: not with snapshot",
    );
    await expect(startSandbox({ snapshot: "/nonexistent/w.snapshot" })).rejects.toThrow("startSandbox: snapshot: cannot read");
  });

  it('a plain startSandbox() is the root: id "root", and its snapshot() answers the file', async () => {
    const plain = await startSandbox();
    try {
      expect(plain.id).toBe("root");
      expect((await plain.snapshot()).subarray(0, 8).toString("latin1")).toBe("PAYSBXSN");
    } finally {
      await plain.close();
    }
  });
});
