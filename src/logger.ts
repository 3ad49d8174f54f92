import { createRequire } from "node:module";
import pino, { type Logger } from "pino";

/** pino; human-readable lines on a terminal, JSON lines otherwise (pipes, files, containers). */
export function createLogger(level: string, stream: NodeJS.WritableStream = process.stdout): Logger {
  const tty = (stream as NodeJS.WriteStream).isTTY === true;
  if (tty) {
    // loaded only on a terminal: it costs start-up time that pipes and containers need not pay
    const pretty = createRequire(import.meta.url)("pino-pretty") as typeof import("pino-pretty");
    return pino(
      { level },
      pretty({ sync: true, colorize: true, ignore: "pid,hostname,reqId,method,path,status,ms", translateTime: "SYS:HH:MM:ss.l" }),
    );
  }
  return pino({ level, base: undefined }, stream);
}

export type { Logger };
