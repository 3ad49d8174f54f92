/**
 * A webhook receiver that takes its time: each answer leaves `delayMs` real ms after its request
 * arrived (the receiver waits; the sandbox under test must not), and it knows which answers went
 * out whole and which connections the sandbox closed first.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface SlowReceiver {
  url: string;
  arrived: string[];
  /** Paths whose answer was written whole while the connection was still open. */
  answered: string[];
  /** Paths whose connection the sandbox closed before the answer. */
  cut: string[];
  waitFor(n: number): Promise<void>;
  /**
   * Until `n` connections were cut: the sandbox closes a socket and answers its own caller in the
   * same moment, and this receiver sees the close a turn or more later (later still on a busy machine).
   */
  waitForCut(n: number): Promise<void>;
  close(): Promise<void>;
}

export async function slowReceiver(delayMs: number): Promise<SlowReceiver> {
  const arrived: string[] = [];
  const answered: string[] = [];
  const cut: string[] = [];
  const waiters: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const path = req.url ?? "";
      arrived.push(path);
      for (const w of waiters.splice(0)) w();
      const timer = setTimeout(() => {
        if (res.destroyed) return;
        res.end("ok", () => answered.push(path));
      }, delayMs);
      res.on("close", () => {
        if (!res.writableFinished) {
          clearTimeout(timer);
          cut.push(path);
          for (const w of waiters.splice(0)) w();
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const waitFor = async (n: number) => {
    while (arrived.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const waitForCut = async (n: number) => {
    while (cut.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived,
    answered,
    cut,
    waitFor,
    waitForCut,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
