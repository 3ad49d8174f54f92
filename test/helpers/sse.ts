/**
 * A test's listener on `GET /_sandbox/events` (docs/events.md): opens the stream through any fetch (an
 * app's own `app.fetch`, or the real server's), parses it with the CLI's parser and collects the
 * events; `waitFor(n)` resolves once n have arrived (no sleeping), `close()` drops the connection.
 */
import { type SseEvent, SseParser } from "../../src/cli/sse.js";

export type { SseEvent };

export interface Listener {
  status: number;
  /** The JSON body of a refusal (400, 401, 410). */
  body: unknown;
  events: SseEvent[];
  comments: string[];
  /** Resolves with the events once there are `n` (rejects after `timeoutMs`, naming what came). */
  waitFor(n: number, timeoutMs?: number): Promise<SseEvent[]>;
  /** Resolves once the server ended the stream. */
  ended: Promise<void>;
  close(): Promise<void>;
}

type Fetch = (req: Request) => Response | Promise<Response>;

export async function listen(fetcher: Fetch, url: string, headers: Record<string, string> = {}): Promise<Listener> {
  const abort = new AbortController();
  const res = await fetcher(new Request(url, { headers, signal: abort.signal }));
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const check = () => {
    for (const w of [...waiters]) {
      if (events.length >= w.n) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  if (!res.headers.get("content-type")?.startsWith("text/event-stream")) {
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return {
      status: res.status,
      body,
      events,
      comments,
      waitFor: () => Promise.reject(new Error(`no stream: ${res.status} ${text}`)),
      ended: Promise.resolve(),
      close: async () => undefined,
    };
  }
  const parser = new SseParser(
    (e) => {
      events.push(e);
      check();
    },
    (c) => comments.push(c),
  );
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // closed by the test
    }
  })();
  return {
    status: res.status,
    body: undefined,
    events,
    comments,
    waitFor(n, timeoutMs = 5_000) {
      if (events.length >= n) return Promise.resolve(events);
      return new Promise<SseEvent[]>((resolve, reject) => {
        const timer = setTimeout(() => {
          const got = events.map((e) => `${e.id} ${e.event} ${e.data}`).join("\n");
          reject(new Error(`waited for ${n} events, got ${events.length}:\n${got}`));
        }, timeoutMs);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(events);
          },
        });
      });
    },
    ended,
    async close() {
      await reader.cancel().catch(() => undefined);
      abort.abort();
      await ended;
    },
  };
}

/** The JSON data of each event. */
export const dataOf = (events: SseEvent[]) => events.map((e) => JSON.parse(e.data) as Record<string, unknown>);
