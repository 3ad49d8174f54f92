/** One connection, one request at a time: the latency figures of 0.01 ms. */
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { chooseWrk, type LoadResult, type MixedRequest, runWrk, withCpu } from "./load.js";
import { processCpuMs } from "./process.js";
import { percentile } from "./report.js";

export interface SequentialOptions {
  url: string;
  method?: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  headers?: Record<string, string>;
  /** A body per request (unique i per request, warm-up included); JSON. Without it, no body. */
  bodyFor?: (i: number) => string;
  /** Seconds measured, after `warmup` seconds whose requests are discarded (default 1). */
  duration?: number;
  warmup?: number;
  /** The server's pid (Running.pid): adds cpuUsPerReq to the result. */
  pid?: number;
}

/**
 * One connection, one request at a time: latency with 0.01 ms resolution, where autocannon's
 * whole milliseconds say nothing. With wrk (when loadMixed() would use it): `-t1 -c1` for `warmup`
 * seconds (discarded), then for `duration` seconds. Otherwise node:http over one keep-alive
 * socket, each request timed with performance.now() from its start to its response's last byte;
 * that includes the client's own time (node:http building and parsing, some 0.05–0.1 ms, more
 * than wrk's).
 */
export async function sequentialLatency(opts: SequentialOptions): Promise<LoadResult> {
  const method = opts.method ?? (opts.bodyFor ? "POST" : "GET");
  const template: MixedRequest = {
    method,
    path: opts.path,
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(opts.bodyFor ? { bodyFor: opts.bodyFor } : {}),
  };
  if (chooseWrk([template]) !== undefined) {
    const warmup = opts.warmup ?? 1;
    // a fresh script each run: its i values differ from the warm-up's
    if (warmup > 0) await runWrk(opts.url, chooseWrk([template]) as string, 1, warmup);
    const script = chooseWrk([template]) as string;
    return withCpu(opts.pid, () => runWrk(opts.url, script, 1, opts.duration ?? 10));
  }
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(opts.path, opts.url);
  let i = 0;
  const once = (): Promise<number> =>
    new Promise((resolve) => {
      const body = opts.bodyFor?.(i++);
      const headers: Record<string, string | number> = { ...opts.headers };
      if (body !== undefined) {
        headers["content-type"] ??= "application/json";
        headers["content-length"] = Buffer.byteLength(body);
      }
      const req = httpRequest(target, { method, agent, headers }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", () => resolve(0));
      });
      req.on("error", () => resolve(0));
      req.end(body);
    });
  try {
    const warmupEnd = performance.now() + (opts.warmup ?? 1) * 1000;
    while (performance.now() < warmupEnd) await once();
    const samples: number[] = [];
    let errors = 0;
    let non2xx = 0;
    const cpu0 = opts.pid ? processCpuMs(opts.pid) : undefined;
    const start = performance.now();
    const end = start + (opts.duration ?? 10) * 1000;
    while (performance.now() < end) {
      const t0 = performance.now();
      const status = await once();
      const ms = performance.now() - t0;
      if (status === 0) errors++;
      else if (status < 200 || status > 299) non2xx++;
      else samples.push(ms);
    }
    const elapsed = (performance.now() - start) / 1000;
    const cpu1 = opts.pid ? processCpuMs(opts.pid) : undefined;
    const total = samples.length + errors + non2xx;
    const out: LoadResult = {
      rps: Math.round(total / elapsed),
      p50: percentile(samples, 50, 2),
      p99: percentile(samples, 99, 2),
      errors,
      non2xx,
      total,
      loader: "node",
    };
    if (cpu0 !== undefined && cpu1 !== undefined && total > 0) out.cpuUsPerReq = Math.round(((cpu1 - cpu0) * 1000) / total);
    return out;
  } finally {
    agent.destroy();
  }
}
