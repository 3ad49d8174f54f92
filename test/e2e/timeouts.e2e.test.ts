/**
 * The server's own timeouts (docs/configuration.md#timeouts) on a real `paysandbox start` with small
 * ones (1 s for a head, 2 s for a whole request): a head trickled a byte at a time, a connection that
 * sends nothing and a body trickled past the request timeout are answered 408 and closed; what runs
 * longer than both is not cut: a live-events stream, a clock advance that waits for a slow webhook
 * receiver, an idle keep-alive connection. No sleeping: each wait is on an event (a close, an answer).
 */
import { Agent, createServer, get, type IncomingMessage, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type RunningServer, runCli, startServer } from "../helpers/server.js";
import { type Listener, listen } from "../helpers/sse.js";
import { cardPaymentBody } from "../http/payments.body.js";

let server: RunningServer;
afterAll(async () => {
  await server?.stop();
});

/** A raw connection that sends `head` then calls `more` every 100 ms; resolves with what it read once the server closed it. */
function slowClient(port: number, head: string, more: (socket: ReturnType<typeof connect>) => void): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    let read = "";
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      read += d;
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearInterval(timer);
      resolve(read);
    });
    socket.on("connect", () => {
      socket.write(head);
      timer = setInterval(() => more(socket), 100);
    });
  });
}

/** A webhook receiver that fails its first delivery at once, then holds every answer until `release()`. */
async function heldReceiver() {
  let attempts = 0;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const arrivals: Array<() => void> = [];
  const srv: Server = createServer((req, res) => {
    req.resume();
    attempts++;
    for (const a of arrivals.splice(0)) a();
    if (attempts === 1) res.writeHead(500).end();
    else void released.then(() => res.end("ok"));
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hooks`,
    release,
    /** Resolves once `n` attempts have arrived. */
    arrived: (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (attempts >= n ? resolve() : arrivals.push(check));
        check();
      }),
    close: () => {
      srv.closeAllConnections();
      return new Promise((resolve) => srv.close(resolve));
    },
  };
}

/** GET /_sandbox/health through `agent`: its status, and whether it went on a connection used before. */
function health(agent: Agent, url: string): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = get(`${url}/_sandbox/health`, { agent }, (res: IncomingMessage) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
    });
    req.on("error", reject);
  });
}

describe("header and request timeouts", () => {
  let events: Listener;
  beforeAll(async () => {
    server = await startServer({ args: ["--header-timeout-seconds", "1", "--request-timeout-seconds", "2"] });
    // its /openapi.json built first (the suite checks answers against it): building it holds the
    // event loop, on a loaded machine for longer than this 1 s header timeout, and a connection
    // accepted just before such a hold would be counted late
    expect((await fetch(`${server.url}/openapi.json`)).status).toBe(200);
    events = await listen(fetch, `${server.url}/_sandbox/events?types=transaction`);
  });
  afterAll(() => events?.close());

  it("closes slow heads, silent connections and slow bodies with 408, and cuts none of what runs longer", async () => {
    const receiver = await heldReceiver();
    const token = (
      await call("POST", `${server.url}/api/v1/auth`, {
        merchantKey: "sandbox_merchant_key",
        merchantSecret: "sandbox_merchant_secret",
      })
    ).body.token;
    const paid = await call("POST", `${server.url}/api/v1/payments/card`, cardPaymentBody({ callbackUrl: receiver.url }), token);
    expect(paid.status).toBe(200);
    await events.waitFor(1);
    // its webhook failed once; the retry, 2 virtual minutes later, is held by the receiver: this advance waits for it
    await receiver.arrived(1);
    const advance = call("POST", `${server.url}/_sandbox/clock/advance`, { by: "PT3M" });
    await receiver.arrived(2);
    // an idle keep-alive connection, used once
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect(await health(agent, server.url)).toEqual({ status: 200, reused: false });

    const head = "GET /_sandbox/health HTTP/1.1\r\nHost: localhost\r\n";
    let at = 0;
    const [trickledHead, silent, trickledBody] = await Promise.all([
      slowClient(server.port, "G", (socket) => socket.write(head[++at % head.length] ?? "x")),
      slowClient(server.port, "", () => undefined),
      slowClient(
        server.port,
        "POST /_sandbox/scenarios HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n",
        (socket) => socket.write(" "),
      ),
    ]);
    for (const read of [trickledHead, silent, trickledBody]) expect(read).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);

    // past both timeouts: the held advance answers, the stream still carries events, the idle connection serves
    receiver.release();
    const advanced = await advance;
    expect(advanced.status).toBe(200);
    expect(advanced.body.ran.deliveries).toBeGreaterThanOrEqual(1);
    expect(await health(agent, server.url)).toEqual({ status: 200, reused: true });
    const seen = events.events.length;
    expect((await call("POST", `${server.url}/api/v1/payments/card`, cardPaymentBody(), token)).status).toBe(200);
    await events.waitFor(seen + 1);
    agent.destroy();
    await receiver.close();
  });

  it("refuses a header timeout longer than the request timeout, naming both", async () => {
    const { code, output } = await runCli([
      "start",
      "--header-timeout-seconds",
      "60",
      "--request-timeout-seconds",
      "30",
      "--port",
      "0",
    ]);
    expect(code).toBe(2);
    expect(output).toContain(
      "Invalid setting --header-timeout-seconds (SANDBOX_HEADER_TIMEOUT_SECONDS / --header-timeout-seconds): must be at most the request timeout (--request-timeout-seconds, 30); got 60",
    );
  });
});
