/**
 * `paysandbox trigger KIND` (docs/webhooks.md#building-a-receiver) against a real server: every kind
 * its --help lists makes its real transaction in a fresh sandbox, whose signed webhooks reach a real
 * receiver (the signature checked with the merchant's secret, the body against the document's
 * webhooks by the conformance check), and the command prints each delivery's answer. Every callback
 * kind of the signer table has a kind that sends it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { triggerCommand } from "../../src/cli/trigger.js";
import { TRIGGER_KINDS } from "../../src/cli/trigger-kinds.js";
import { checksum, SIGNED_FIELDS } from "../../src/webhooks/signer.js";
import { BUILTIN } from "../helpers/harness.js";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { type RunningServer, runCli, startServer } from "../helpers/server.js";

let server: RunningServer;
let receiver: Receiver;
beforeAll(async () => {
  server = await startServer();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await server?.stop();
});

/** The command in process: its exit code and what it printed. */
async function trigger(kind: string, ...flags: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const opts = Object.fromEntries(
    flags.map((f) => {
      const [k, v] = f.replace(/^--/, "").split("=");
      return [k as string, v ?? true];
    }),
  );
  const code = await triggerCommand(kind, { target: server.url, ...opts }, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("paysandbox trigger", () => {
  it("--help lists every kind; an unknown kind is a usage error naming them", async () => {
    const help = await runCli(["trigger", "--help"]);
    expect(help.code).toBe(0);
    for (const k of TRIGGER_KINDS) expect(help.output).toContain(k.name);
    const bad = await runCli(["trigger", "card-paymnet", "--target", server.url]);
    expect(bad.code).toBe(2);
    expect(bad.output).toMatch(/unknown kind "card-paymnet"; one of: card-payment, /);
  });

  it("every callback kind of the signer table has a trigger kind", () => {
    expect(new Set(TRIGGER_KINDS.map((k) => k.callback))).toEqual(new Set(Object.keys(SIGNED_FIELDS)));
  });

  it.each(TRIGGER_KINDS.map((k) => [k.name, k] as const))(
    "%s: its real webhooks reach the receiver, signed, and the command prints each delivery's answer",
    async (_name, kind) => {
      const before = receiver.received.length;
      const run = await trigger(kind.name, `--to=${receiver.url}/${kind.name}`, "--json");
      expect(run.err).toBe("");
      expect(run.code).toBe(0);
      const report = JSON.parse(run.out);
      expect(report).toMatchObject({ kind: kind.name, callback: kind.callback, sandbox: expect.stringMatching(/^sbx_/) });
      expect(report.deliveries.length).toBeGreaterThan(0);
      for (const d of report.deliveries) {
        expect(d.status).toBe("delivered");
        expect(d.attempts.at(-1).httpStatus).toBe(200);
      }
      // what the receiver got for this kind: its callback bodies, each signed with the merchant's secret
      const got = receiver.received.slice(before).filter((h) => h.path === `/${kind.name}`);
      const mine = got.filter((h) => report.deliveries.some((d: { id: string }) => d.id === h.headers["x-sandbox-delivery-id"]));
      expect(mine.map((h) => (h.body as { transactionStatus: string }).transactionStatus)).toEqual(
        report.deliveries.map((d: { eventStatus: string }) => d.eventStatus),
      );
      for (const h of mine) {
        expect(h.headers["x-checksum"]).toBe(checksum(kind.callback, h.body as Record<string, unknown>, BUILTIN.merchantSecret));
      }
      // the fresh sandbox is gone
      expect((await fetch(`${server.url}/_sandbox/sandboxes/${report.sandbox}`)).status).toBe(404);
    },
  );

  it("without --to it receives the webhooks itself and prints them, signature verified", async () => {
    const run = await trigger("card-payment-failed");
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/received POST \/webhooks\?paymentMethod=card \(X-Checksum verified\): \{"transactionId"/);
    expect(run.out).toMatch(
      /card_payment FAILED → http:\/\/127\.0\.0\.1:\d+\/webhooks\?paymentMethod=card: delivered \(attempt 1: 200\)/,
    );
  });

  it("a receiver that refuses: exit 1, the delivery pending with the attempt's status; --sandbox root keeps it there", async () => {
    receiver.respondWith(500);
    const run = await trigger("card-payment", `--to=${receiver.url}/refusing`, "--sandbox=root");
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/card_payment SUCCEED → .*\/refusing\?paymentMethod=card: pending \(attempt 1: 500\)/);
    const journal = await (await fetch(`${server.url}/_sandbox/webhooks?limit=5`)).json();
    expect(journal[0].url).toContain("/refusing");
  });
});
