/**
 * The dashboard's Fork and Download snapshot (docs/snapshots.md), without script: on the root's list
 * of sandboxes and in each dashboard's top bar. Fork posts, lands (303) on the copy's dashboard with a
 * flash saying so, and the copy holds the source's payment; Download snapshot answers the file,
 * which loads as a new sandbox. A post from another origin changes nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { ORIGIN } from "./dashboard.support.js";
import { cardPaymentBody } from "./payments.body.js";

let s: TestServer;
afterEach(() => s?.close());

const list = async () => (await s.http.get("/_sandbox/sandboxes")).body as Array<{ id: string; name: string | null }>;

async function world() {
  s = makeServer();
  const made = await s.create({ name: "world" });
  const token = await s.token(made.base);
  const paid = await s.http.post(`${made.base}/api/v1/payments/card`).set("authorization", token).send(cardPaymentBody());
  return { ...made, orderId: paid.body.transactionId as string };
}

describe("the dashboard's Fork and Download snapshot", () => {
  it("the root's list offers both on each sandbox; a sandbox's own dashboard offers both on itself", async () => {
    const w = await world();
    const root = await s.http.get("/").set("accept", "text/html");
    expect(root.text).toContain(`<form method="post" action="/sandboxes/${w.id}/dashboard/fork">`);
    expect(root.text).toContain(`href="/sandboxes/${w.id}/dashboard/snapshot"`);
    const own = await s.http.get(`${w.base}/`).set("accept", "text/html");
    expect(own.text).toContain(`<form class="fork" method="post" action="${w.base}/dashboard/fork">`);
    expect(own.text).toContain(`href="${w.base}/dashboard/snapshot"`);
  });

  it("Fork → 303 to the copy's dashboard with a flash; the copy holds the source's payment", async () => {
    const w = await world();
    const res = await s.http.post(`${w.base}/dashboard/fork`).set("origin", ORIGIN).type("form").send({ back: "/" });
    expect(res.status).toBe(303);
    const copies = (await list()).filter((x) => x.id !== w.id);
    expect(copies).toHaveLength(1);
    const copy = copies[0]?.id as string;
    expect(res.headers.location).toMatch(new RegExp(`/sandboxes/${copy}/$`));
    const cookie = res.headers["set-cookie"] as unknown as string[];
    const page = await s.http.get(`/sandboxes/${copy}/`).set("accept", "text/html").set("Cookie", cookie);
    expect(page.text).toContain(`Forked ${w.id} as ${copy}`);
    const token = await s.token(`/sandboxes/${copy}`);
    const status = await s.http.get(`/sandboxes/${copy}/api/v1/payments/card/status/${w.orderId}`).set("authorization", token);
    expect(status.body.transactionStatus).toBe("SUCCEED");
  });

  it("Fork on the root's own dashboard copies the root", async () => {
    s = makeServer();
    const res = await s.http.post("/dashboard/fork").set("origin", ORIGIN).type("form").send({ back: "/" });
    expect(res.status).toBe(303);
    expect(await list()).toHaveLength(1);
  });

  it("Fork from another origin → 403, nothing created", async () => {
    const w = await world();
    const res = await s.http.post(`${w.base}/dashboard/fork`).set("origin", "http://evil.example").type("form").send({});
    expect(res.status).toBe(403);
    expect(await list()).toHaveLength(1);
  });

  it("Download snapshot answers the file, which loads as a new sandbox holding the payment", async () => {
    const w = await world();
    const res = await s.server.fetch(new Request(`${ORIGIN}${w.base}/dashboard/snapshot`));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.paysandbox.snapshot");
    expect(res.headers.get("content-disposition")).toMatch(new RegExp(`^attachment; filename="${w.id}-.*\\.paysandbox"$`));
    const file = Buffer.from(await res.arrayBuffer());
    const loaded = await s.server.fetch(
      new Request(`${ORIGIN}/_sandbox/sandboxes?name=downloaded`, {
        method: "POST",
        headers: { "content-type": "application/vnd.paysandbox.snapshot" },
        body: new Uint8Array(file),
      }),
    );
    expect(loaded.status).toBe(201);
    const { id } = (await loaded.json()) as { id: string };
    const token = await s.token(`/sandboxes/${id}`);
    const status = await s.http.get(`/sandboxes/${id}/api/v1/payments/card/status/${w.orderId}`).set("authorization", token);
    expect(status.body.transactionStatus).toBe("SUCCEED");
  });
});
