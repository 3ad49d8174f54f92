/**
 * A body over its limit gets its 413, and the client reads it (docs/api.md#errors): whether it came
 * with a Content-Length or in chunks, 2 MiB or 20 MiB, one client or several at once, at the root,
 * inside a sandbox and on the control plane. Over real sockets (node:http and raw ones): the server
 * answers with `Connection: close`, drops the rest of the body, and closes once the client does, or
 * at its bound, so a client that never stops sending is cut.
 */
import { createServer, request, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverTimeouts } from "../../src/http/server-timeouts.js";
import { conforming } from "../helpers/conformance.js";
import { makeServer, type TestServer } from "../helpers/harness.js";

const MiB = 1024 * 1024;
const TOO_LARGE = { errorMessage: "Request body too large (limit 1 MiB)" };

/** A JSON document of `size` bytes: valid JSON, so only its size is wrong. */
const jsonOf = (size: number) => Buffer.from(`{"x":"${"a".repeat(size - 8)}"}`);
const BODIES = { "2 MiB": jsonOf(2 * MiB), "20 MiB": jsonOf(20 * MiB) };

let s: TestServer;
let http: Server;
let port: number;
let rootToken: string;
let base: string;
let sandboxToken: string;

beforeAll(async () => {
  // the request timeout bounds how long a refused body is drained (docs/configuration.md#timeouts)
  const config = { requestTimeoutSeconds: 2 };
  s = makeServer({ config });
  http = createServer(serverTimeouts({ headerTimeoutSeconds: 2, ...config }), getRequestListener(conforming(s.server.fetch)));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  port = (http.address() as AddressInfo).port;
  rootToken = await s.token("");
  ({ base } = await s.create());
  sandboxToken = await s.token(base);
});
afterAll(async () => {
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
  await s.close();
});

interface Outcome {
  status?: number;
  connection?: string;
  body?: unknown;
  error?: string;
}

/** One upload with node:http on a connection of its own: what the client read, or its socket error. */
function upload(path: string, body: Buffer, how: "chunked" | "length", headers: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve) => {
    const framing = how === "chunked" ? { "transfer-encoding": "chunked" } : { "content-length": String(body.length) };
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        agent: false,
        headers: { "content-type": "application/json", ...headers, ...framing },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          text += d;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, connection: String(res.headers.connection), body: JSON.parse(text) as unknown }),
        );
        res.on("error", (err: NodeJS.ErrnoException) => resolve({ error: `response: ${err.code ?? err.message}` }));
      },
    );
    req.on("error", (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    if (how === "length") req.end(body);
    else {
      for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.subarray(at, at + 64 * 1024));
      req.end();
    }
  });
}

const targets = (): Array<{ where: string; path: string; headers: Record<string, string> }> => [
  { where: "the root's gateway", path: "/api/v1/payments/card", headers: { authorization: rootToken } },
  { where: "a sandbox's gateway", path: `${base}/api/v1/payments/card`, headers: { authorization: sandboxToken } },
  { where: "the root's control plane", path: "/_sandbox/scenarios", headers: {} },
  { where: "a sandbox's control plane", path: `${base}/_sandbox/scenarios`, headers: {} },
];

describe("a body over 1 MiB gets its 413, and the client reads it", () => {
  for (const how of ["chunked", "length"] as const) {
    for (const [size, body] of Object.entries(BODIES)) {
      it(`${how === "chunked" ? "in chunks" : "with a Content-Length"}, ${size}: one after another, then 4 clients at once`, async () => {
        for (const { where, path, headers } of targets()) {
          const outcomes = [await upload(path, body, how, headers), await upload(path, body, how, headers)];
          outcomes.push(...(await Promise.all([1, 2, 3, 4].map(() => upload(path, body, how, headers)))));
          for (const outcome of outcomes) expect(outcome, where).toEqual({ status: 413, connection: "close", body: TOO_LARGE });
        }
        // nothing was taken: the control planes loaded no scenario
        expect((await s.http.get("/_sandbox/scenarios")).body).toEqual([]);
        expect((await s.http.get(`${base}/_sandbox/scenarios`)).body).toEqual([]);
      });
    }
  }
});

/** A raw client: sends the head, then `send(socket)`; resolves with all it read once the socket closed. */
function raw(head: string, send: (socket: ReturnType<typeof connect>) => void): Promise<{ read: string; error?: string }> {
  return new Promise((resolve) => {
    // half-open allowed: the client does not end its side when the server ends its own
    const socket = connect({ host: "127.0.0.1", port, allowHalfOpen: true });
    let read = "";
    let error: string | undefined;
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      read += d;
    });
    socket.on("error", (err: NodeJS.ErrnoException) => {
      error = err.code ?? err.message;
    });
    socket.on("close", () => resolve(error === undefined ? { read } : { read, error }));
    socket.on("connect", () => {
      socket.write(head);
      send(socket);
    });
  });
}

const chunkOf = (bytes: Buffer) => Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from("\r\n")]);
const headOf = (path: string, framing: string) =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;

/** The answer a raw client read: its status line, its Connection header and its JSON body. */
function answerOf(read: string) {
  const [head = "", body = ""] = read.split("\r\n\r\n");
  return {
    status: head.split("\r\n")[0],
    connection: /^connection: (.*)$/im.exec(head)?.[1],
    body: JSON.parse(body) as unknown,
  };
}

describe("over a raw socket", () => {
  it("a client that sends its whole body before it reads (a Content-Length of 20 MiB) reads its 413", async () => {
    const body = BODIES["20 MiB"];
    const { read } = await raw(headOf(`${base}/_sandbox/scenarios`, `Content-Length: ${body.length}`), (socket) => {
      socket.write(body, () => socket.end());
    });
    expect(answerOf(read)).toEqual({ status: "HTTP/1.1 413 Payload Too Large", connection: "close", body: TOO_LARGE });
  });

  it("a client that never stops sending chunks, as fast as it can, reads its 413 and is cut", async () => {
    const piece = chunkOf(Buffer.alloc(256 * 1024, 97));
    const { read } = await raw(
      headOf("/api/v1/payments/card", `Authorization: ${rootToken}\r\nTransfer-Encoding: chunked`),
      (socket) => {
        const more = () => {
          while (!socket.destroyed && socket.write(piece));
        };
        socket.on("drain", more);
        more();
      },
    );
    expect(answerOf(read)).toEqual({ status: "HTTP/1.1 413 Payload Too Large", connection: "close", body: TOO_LARGE });
  });

  it("a client that trickles its body forever reads its 413 and is cut", async () => {
    const { read } = await raw(
      headOf(`${base}/api/v1/payments/card`, `Authorization: ${sandboxToken}\r\nTransfer-Encoding: chunked`),
      (socket) => {
        socket.write(chunkOf(Buffer.alloc(MiB + 1, 97)));
        const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write(chunkOf(Buffer.from("a")))), 20);
        socket.on("close", () => clearInterval(timer));
      },
    );
    expect(answerOf(read)).toEqual({ status: "HTTP/1.1 413 Payload Too Large", connection: "close", body: TOO_LARGE });
  });
});
