import pino, { type Logger } from "pino";
import pretty from "pino-pretty";

/** pino; human-readable lines on a terminal, JSON lines otherwise (pipes, files, containers). */
export function createLogger(level: string, stream: NodeJS.WritableStream = process.stdout): Logger {
  const tty = (stream as NodeJS.WriteStream).isTTY === true;
  if (tty) {
    return pino(
      { level },
      pretty({ sync: true, colorize: true, ignore: "pid,hostname,reqId,method,path,status,ms", translateTime: "SYS:HH:MM:ss.l" }),
    );
  }
  return pino({ level, base: undefined }, stream);
}

export type { Logger };
