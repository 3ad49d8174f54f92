/**
 * docs/recording.md, docs/run.md: a session recorded in a sandbox replays green with
 * `paysandbox run` on a fresh sandbox, including the posts a shopper's browser makes that the page
 * would not make now: a second press of a 3DS, hosted payment page or QR button (409), a post for a
 * transaction the sandbox does not know (404), a button the page has not (400), a field the page does
 * not ask for (ignored, as in the session).
 */

import { afterEach, describe, expect, it } from "vitest";
import { loadScenarioFile } from "../../src/runner/load.js";
import { runFiles } from "../../src/runner/run.js";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { readStrict } from "../helpers/strict-yaml.js";
import { apmBody } from "./apm.support.js";
import { CARDS, threeDsBody } from "./payments.body.js";
import { scenarioFile } from "./runner.support.js";

let s: TestSandbox | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const post = (sandbox: TestSandbox, path: string, fields: Record<string, string>) =>
  sandbox.http.post(path).type("form").send(fields);

describe("a recorded session replays with `paysandbox run` (docs/recording.md)", () => {
  it("pages posted twice, a post for an unknown transaction, a missing button and an unasked field replay as recorded", async () => {
    s = makeSandbox();
    const token = await s.token();
    const gw = (path: string, body: unknown) =>
      s?.http
        .post(`/api/v1${path}`)
        .set("authorization", token)
        .send(body as object);

    const challenged = await gw("/payments/card", threeDsBody("http://127.0.0.1:9/hooks", { card: { number: CARDS.threeDs } }));
    const tx = challenged?.body.transactionId as string;
    expect((await post(s, `/sandbox/3ds/${tx}`, { outcome: "success" })).status).toBe(303);
    expect((await post(s, `/sandbox/3ds/${tx}`, { outcome: "success" })).status).toBe(409);
    expect((await post(s, `/sandbox/3ds/${tx}`, { outcome: "failure" })).status).toBe(409);
    expect((await post(s, "/sandbox/3ds/tx_unknown0000", { outcome: "success" })).status).toBe(404);

    const hpp = await gw("/payments/apm", apmBody("EXTERNAL_HPP_EFT"));
    const hppTx = hpp?.body.transactionId as string;
    expect((await post(s, `/sandbox/hpp/${hppTx}`, { outcome: "maybe" })).status).toBe(400);
    expect((await post(s, `/sandbox/hpp/${hppTx}`, { outcome: "success", accountHolderName: "Jane Doe" })).status).toBe(400);
    const typed = {
      outcome: "success",
      accountHolderName: "Jane Doe",
      institutionNumber: "001",
      transitNumber: "00011",
      accountNumber: "1234567",
      // a field the page does not ask for, sent by a hand-made post: the page ignores it
      note: "by hand",
    };
    expect((await post(s, `/sandbox/hpp/${hppTx}`, typed)).status).toBe(303);
    expect((await post(s, `/sandbox/hpp/${hppTx}`, typed)).status).toBe(409);

    const qr = await gw("/payments/apm", apmBody("UPI_QR"));
    const qrTx = qr?.body.transactionId as string;
    expect((await post(s, `/sandbox/qr/${qrTx}`, { outcome: "failure" })).status).toBe(303);
    expect((await post(s, `/sandbox/qr/${qrTx}`, { outcome: "success" })).status).toBe(409);

    const recording = await s.http.get("/_sandbox/recording");
    expect(recording.status).toBe(200);
    const doc = readStrict(recording.text) as { steps: Array<Record<string, unknown>> };
    expect(doc.steps.filter((x) => (x.expect as { status?: number } | undefined)?.status === 409)).toHaveLength(4);
    // a post with no button of the page's cannot be a step: the header says it was left out
    expect(recording.text).toMatch(/^# Left out \(.*\): the hosted payment page post of tx_\w+ with outcome=maybe \(400\)$/m);
    expect(doc.steps.some((x) => (x.hpp as { outcome?: string } | undefined)?.outcome === "maybe")).toBe(false);

    const loaded = loadScenarioFile(scenarioFile(recording.text));
    if (!loaded.ok) throw new Error(loaded.message);
    const [result] = await runFiles([loaded.loaded]);
    const failed = result?.steps.filter((x) => x.status !== "passed") ?? [];
    expect(failed, JSON.stringify(failed, null, 2)).toEqual([]);
    expect(result?.steps.length).toBeGreaterThan(10);
  });
});
