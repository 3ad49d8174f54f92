import { afterEach, describe, expect, it } from "vitest";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { enqueueCard } from "../unit/webhooks.support.js";

let s: TestSandbox;
afterEach(async () => {
  await s.close();
});

describe("webhook journal and replay behind SANDBOX_ADMIN_TOKEN", () => {
  it("need the admin token when one is set", async () => {
    s = makeSandbox({ config: { adminToken: "s3cret" } });
    const id = enqueueCard(s.ctx, "http://127.0.0.1:9/hook", "tx_1");
    for (const auth of [undefined, "Bearer wrong", "s3cret"]) {
      const list = s.http.get("/_sandbox/webhooks");
      const replay = s.http.post(`/_sandbox/webhooks/${id}/replay`);
      if (auth) {
        list.set("Authorization", auth);
        replay.set("Authorization", auth);
      }
      expect((await list).status).toBe(401);
      expect((await replay).status).toBe(401);
    }
    const ok = await s.http.get("/_sandbox/webhooks").set("Authorization", "Bearer s3cret");
    expect(ok.status).toBe(200);
    expect(ok.body).toHaveLength(1);
  });

  it("a merchant's bearer token does not open them", async () => {
    s = makeSandbox({ config: { adminToken: "s3cret" } });
    const token = await s.token();
    expect((await s.http.get("/_sandbox/webhooks").set("Authorization", token)).status).toBe(401);
  });
});
