/** Probes that time one request at a time while something else loads the server. */
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { setTimeout as delay } from "node:timers/promises";

export interface ProbeResult {
  probes: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * Times `GET <url>/_sandbox/health` one request at a time on one keep-alive socket (node:http, so
 * the probe takes little of the machine), `gapMs` between answers, until `end()`: how long the
 * server's event loop leaves a request waiting. Measure an idle server with it in the same run and
 * quote the ratio (latency targets as a ratio to a floor measured in the same run).
 */
export function healthProbe(url: string, gapMs = 5): { end(): Promise<ProbeResult> } {
  return requestProbe(`${url}/_sandbox/health`, { gapMs });
}

/**
 * The same probe for any request: `bodyFor(i)` makes the i-th body (a POST), e.g. a card payment
 * with a fresh requestId in a sandbox while others are busy. An answer that is not 2xx counts in
 * `failed` and not in the times.
 */
export function requestProbe(
  url: string,
  opts: { gapMs?: number; headers?: Record<string, string>; bodyFor?: (i: number) => string } = {},
): { end(): Promise<ProbeResult & { failed: number }> } {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  let failed = 0;
  let stop = false;
  let i = 0;
  const once = () =>
    new Promise<void>((resolve) => {
      const body = opts.bodyFor?.(i++);
      const headers: Record<string, string | number> = { ...opts.headers };
      if (body !== undefined) {
        headers["content-type"] = "application/json";
        headers["content-length"] = Buffer.byteLength(body);
      }
      const t0 = performance.now();
      const req = httpRequest(url, { method: body === undefined ? "GET" : "POST", agent, headers }, (res) => {
        res.resume();
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) times.push(performance.now() - t0);
          else failed++;
          resolve();
        });
      });
      req.on("error", () => {
        failed++;
        resolve();
      });
      req.end(body);
    });
  const loop = (async () => {
    while (!stop) {
      await once();
      await delay(opts.gapMs ?? 5);
    }
  })();
  return {
    async end() {
      stop = true;
      await loop;
      agent.destroy();
      const s = [...times].sort((a, b) => a - b);
      const pct = (p: number) => Number((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0).toFixed(2));
      return { probes: s.length, p50: pct(50), p99: pct(99), max: pct(100), failed };
    },
  };
}

/** A probe of `ms` real ms (an idle server's floor, measured in the same run as the busy figure). */
export async function probeFor(url: string, ms: number, gapMs = 5): Promise<ProbeResult> {
  const p = healthProbe(url, gapMs);
  await delay(ms);
  return p.end();
}
