/** Webhook receivers for the benches, in processes of their own. */
import { spawn } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";

// A webhook receiver in its own process: it must not share an event loop with autocannon or the sandbox.
const RECEIVER_SOURCE = `
const http = require("node:http");
let n = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => { n++; res.statusCode = 200; res.end("ok"); });
});
server.keepAliveTimeout = 30000;
server.listen(0, "127.0.0.1", () => console.log("PORT " + server.address().port));
process.on("message", () => process.send({ received: n }));
`;

export interface CountingReceiver {
  /** `http://127.0.0.1:PORT` + the path given. */
  url: string;
  /** How many requests it has answered so far. */
  received(): Promise<number>;
  /** Its process (its CPU time is part of what a delivery costs the machine). */
  pid: number;
  stop(): void;
}

/** Starts a receiver that answers every POST with 200 and counts them; `path` is appended to its URL. */
export function startCountingReceiver(path = "/hooks"): Promise<CountingReceiver> {
  const proc = spawn(process.execPath, ["-e", RECEIVER_SOURCE], { stdio: ["ignore", "pipe", "inherit", "ipc"] });
  return new Promise((resolve, reject) => {
    proc.stdout?.on("data", (d: Buffer) => {
      const m = /PORT (\d+)/.exec(d.toString());
      if (!m) return;
      resolve({
        url: `http://127.0.0.1:${m[1]}${path}`,
        received: () =>
          new Promise((res) => {
            proc.once("message", (msg) => res((msg as { received: number }).received));
            proc.send("count");
          }),
        pid: proc.pid as number,
        stop: () => proc.kill("SIGTERM"),
      });
    });
    proc.once("exit", (code) => reject(new Error(`receiver exited ${code}`)));
  });
}

/**
 * Waits until the receiver's count stops growing for a poll of 100 ms (the webhooks still queued
 * are delivered), or `timeoutMs`; answers the count and the ms from the call to the last poll that
 * saw it grow (0 when nothing was left).
 */
export async function drained(receiver: CountingReceiver, timeoutMs = 30_000): Promise<{ count: number; ms: number }> {
  const t0 = performance.now();
  let last = await receiver.received();
  let grewAt = t0;
  for (;;) {
    await delay(100);
    const now = await receiver.received();
    if (now === last || performance.now() - t0 > timeoutMs) return { count: now, ms: Math.round(grewAt - t0) };
    last = now;
    grewAt = performance.now();
  }
}
