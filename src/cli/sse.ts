/**
 * The client side of Server-Sent Events, as the HTML standard's "event stream interpretation"
 * parses them (fields `event`, `data`, `id`, `retry`; `:` comments; CRLF, LF or CR line ends; an
 * event dispatched on a blank line, never without data), for `paysandbox listen` and the tests. The
 * server side is Hono's streamSSE. Node 22 has no EventSource without a flag, and the one in undici cannot send
 * the admin token, nor say why a stream was refused (a 410 with the oldest id kept).
 */
export interface SseEvent {
  /** The last `id` seen so far in the stream (the standard's "last event ID"), "" when none. */
  id: string;
  /** `message` when the event names no type. */
  event: string;
  data: string;
}

export class SseParser {
  private buffer = "";
  private data: string[] = [];
  private event = "";
  private lastId = "";
  private sawCr = false;

  constructor(
    private readonly onEvent: (e: SseEvent) => void,
    private readonly onComment?: (text: string) => void,
  ) {}

  /** The last event id received (what a reconnect sends as Last-Event-ID). */
  get lastEventId(): string {
    return this.lastId;
  }

  /** Feeds decoded text (any split: lines may end in a later chunk). */
  feed(chunk: string): void {
    let text = this.buffer + chunk;
    // a CR at the end of the previous chunk already ended its line: a LF right after it is that same end
    if (this.sawCr && text.startsWith("\n")) text = text.slice(1);
    this.sawCr = false;
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.line(text.slice(start, i));
      if (c === 13) {
        if (i + 1 === text.length) this.sawCr = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.buffer = text.slice(start);
  }

  private line(line: string): void {
    if (line === "") {
      if (this.data.length > 0) this.onEvent({ id: this.lastId, event: this.event || "message", data: this.data.join("\n") });
      this.data = [];
      this.event = "";
      return;
    }
    if (line.startsWith(":")) {
      this.onComment?.(line.slice(1).trimStart());
      return;
    }
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    else if (field === "id" && !value.includes("\0")) this.lastId = value;
  }
}
