/**
 * `${callbackUrl}` (docs/run.md steps): a webhook receiver the run opens on 127.0.0.1 when a file
 * points its callbacks at it, answering 200 to every POST, so deliveries succeed for real and fast.
 * `${callbackUrl}?fail=N` answers 503 to the first N attempts of each delivery (its
 * `X-Sandbox-Attempt`), then 200; `?fail=all` to every attempt: a file can see retries, and a
 * delivery that fails for good.
 * Opened on first use and shared by the files of one command, also when they run side by side;
 * when no file needs it, no port is opened.
 */
import { createServer, type Server } from "node:http";

/** Whether `?fail=` in the delivery's URL refuses this attempt: `all`, or a number of first attempts. */
function refuses(url: string, attempt: number): boolean {
  const fail = new URL(url, "http://receiver").searchParams.get("fail");
  if (fail === null) return false;
  return fail === "all" || (/^\d+$/.test(fail) && attempt <= Number(fail));
}

export class Receiver {
  private server: Server | undefined;
  private url: string | undefined;
  /** Deliveries received, for the curious (the journal is what steps check). */
  received = 0;

  private starting: Promise<string> | undefined;

  /** Opens it once; files running side by side share the one start. */
  start(): Promise<string> {
    this.starting ??= this.listen().catch((err: unknown) => {
      this.starting = undefined;
      throw err;
    });
    return this.starting;
  }

  private async listen(): Promise<string> {
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        this.received++;
        if (refuses(req.url ?? "", Number(req.headers["x-sandbox-attempt"] ?? 1))) {
          res.writeHead(503, { "content-type": "application/json" }).end('{"received":false}');
          return;
        }
        res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
      });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const addr = server.address();
    this.url = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}/webhooks`;
    return this.url;
  }

  /** The URL, once started (steps resolve `${callbackUrl}` synchronously). */
  current(): string {
    if (!this.url) throw new Error("the webhook receiver is not started");
    return this.url;
  }

  async close(): Promise<void> {
    const s = this.server;
    if (!s) return;
    this.server = undefined;
    this.url = undefined;
    this.starting = undefined;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
