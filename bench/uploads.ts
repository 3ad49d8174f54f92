/**
 * The 413 drill (docs/api.md#errors): bodies over the 1 MiB limit posted to the built server
 * (`POST /api/v1/payments/card` with a valid token), each on a connection of its own, and what each
 * client got: its 413 read whole (JSON `errorMessage`), a reset, or anything else. Four clients:
 *
 * - node:http with `Transfer-Encoding: chunked` and with a Content-Length, 2 MiB: BENCH_UPLOADS
 *   (default 200) one after another, then as many again from 4 clients at once; 20 MiB: a fifth as many;
 * - a raw socket that writes its whole 20 MiB body before it reads (as Python's http.client does);
 * - curl with `-H 'transfer-encoding: chunked'`, when curl is on PATH: a tenth as many.
 *
 * Target: every client reads its 413, 0 resets. BENCH_MAIN=<other dist/main.js> measures another
 * build (the one before the fix reset every chunked upload).
 *
 *   npx tsx bench/uploads.ts
 *
 * JSON lines: {"bench":"uploads-<client>-<framing>-<size>-<n at once>", "requests", "read413", "resets", "other"}.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emit, merchantToken, startSandbox } from "./lib.js";

const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 200);
const MiB = 1024 * 1024;
const bodyOf = (size: number) => Buffer.from(`{"pad":"${"x".repeat(size - 10)}"}`);
const EXPECTED = '{"errorMessage":"Request body too large (limit 1 MiB)"}';

type Outcome = "read413" | "reset" | string;

/** One node:http upload on a fresh connection. */
function nodeUpload(port: number, token: string, body: Buffer, chunked: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const framing = chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(body.length) };
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/api/v1/payments/card",
        method: "POST",
        agent: false,
        headers: { authorization: token, "content-type": "application/json", ...framing },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          text += d;
        });
        res.on("end", () =>
          resolve(res.statusCode === 413 && text === EXPECTED ? "read413" : `${res.statusCode} ${text.slice(0, 80)}`),
        );
        res.on("error", (err: NodeJS.ErrnoException) => resolve(err.code === "ECONNRESET" ? "reset" : `response ${err.code}`));
      },
    );
    req.on("error", (err: NodeJS.ErrnoException) => resolve(err.code === "ECONNRESET" ? "reset" : (err.code ?? err.message)));
    if (!chunked) req.end(body);
    else {
      for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.subarray(at, at + 64 * 1024));
      req.end();
    }
  });
}

/** A raw client that writes its whole body (Content-Length) before reading anything. */
function rawUpload(port: number, token: string, body: Buffer): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    let read = "";
    let error: string | undefined;
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      read += d;
    });
    socket.on("error", (err: NodeJS.ErrnoException) => {
      error = err.code ?? err.message;
    });
    socket.on("close", () => {
      if (read.startsWith("HTTP/1.1 413 ") && read.endsWith(EXPECTED)) resolve("read413");
      else resolve(error === "ECONNRESET" || error === "EPIPE" ? "reset" : `${error ?? ""} ${read.slice(0, 80)}`);
    });
    socket.on("connect", () => {
      socket.write(
        `POST /api/v1/payments/card HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${token}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      socket.write(body, () => socket.end());
    });
  });
}

/** curl with chunks from a file; its exit code 55/56 is a reset. */
function curlUpload(url: string, token: string, file: string): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      "curl",
      [
        "-s",
        "-w",
        " %{http_code}",
        "-H",
        `authorization: ${token}`,
        "-H",
        "content-type: application/json",
        "-H",
        "transfer-encoding: chunked",
        "--data-binary",
        `@${file}`,
        `${url}/api/v1/payments/card`,
      ],
      (err, stdout) => {
        const code = (err as { code?: number } | null)?.code;
        if (code === 55 || code === 56) resolve("reset");
        else resolve(stdout === `${EXPECTED} 413` ? "read413" : `curl ${code ?? 0} ${stdout.slice(0, 80)}`);
      },
    );
  });
}

/** `n` uploads, `atOnce` at a time; the count of each outcome. */
async function drill(n: number, atOnce: number, one: () => Promise<Outcome>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  let left = n;
  await Promise.all(
    Array.from({ length: atOnce }, async () => {
      while (left > 0) {
        left--;
        const outcome = await one();
        counts[outcome] = (counts[outcome] ?? 0) + 1;
      }
    }),
  );
  return counts;
}

let missed = false;
function report(name: string, n: number, counts: Record<string, number>) {
  const read413 = counts.read413 ?? 0;
  const resets = counts.reset ?? 0;
  const other = Object.entries(counts).filter(([k]) => k !== "read413" && k !== "reset");
  const pass = read413 === n;
  if (!pass) missed = true;
  console.log(
    `${name.padEnd(44)} ${String(n).padStart(4)} uploads: ${read413} read their 413, ${resets} resets` +
      `${other.length ? `, other: ${JSON.stringify(Object.fromEntries(other))}` : ""}  ${pass ? "met" : "MISSED"}`,
  );
  emit(`uploads-${name}`, {
    requests: n,
    read413,
    resets,
    other: other.reduce((a, [, v]) => a + v, 0),
    target: "0 resets",
    pass,
  });
}

const server = await startSandbox(process.env.BENCH_MAIN ? { main: process.env.BENCH_MAIN } : {});
try {
  const token = await merchantToken(server.url);
  const two = bodyOf(2 * MiB);
  const twenty = bodyOf(20 * MiB);
  for (const [size, body, n] of [
    ["2MiB", two, UPLOADS],
    ["20MiB", twenty, Math.max(1, Math.round(UPLOADS / 5))],
  ] as const) {
    for (const chunked of [true, false]) {
      for (const atOnce of [1, 4]) {
        const counts = await drill(n, atOnce, () => nodeUpload(server.port, token, body, chunked));
        report(`node-${chunked ? "chunked" : "length"}-${size}-x${atOnce}`, n, counts);
      }
    }
  }
  const raws = Math.max(1, Math.round(UPLOADS / 5));
  report("raw-send-all-then-read-length-20MiB-x4", raws, await drill(raws, 4, () => rawUpload(server.port, token, twenty)));
  const hasCurl = await new Promise<boolean>((resolve) => execFile("curl", ["--version"], (err) => resolve(!err)));
  if (hasCurl) {
    const dir = mkdtempSync(join(tmpdir(), "paysandbox-uploads-"));
    const file = join(dir, "2MiB.json");
    writeFileSync(file, two);
    const n = Math.max(1, Math.round(UPLOADS / 10));
    report("curl-chunked-2MiB-x1", n, await drill(n, 1, () => curlUpload(server.url, token, file)));
    report("curl-chunked-2MiB-x4", n, await drill(n, 4, () => curlUpload(server.url, token, file)));
    rmSync(dir, { recursive: true, force: true });
  } else console.log("curl is not on PATH: its drill is skipped");
} finally {
  await server.stop();
}
if (missed) console.log("MISSED: some clients did not read their 413");
