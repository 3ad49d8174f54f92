/** What a process holds and has spent, read from Linux /proc. */
import { readFileSync } from "node:fs";

/** VmRSS of a process in MB (Linux /proc); NaN once it is gone. */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** CPU time (user + system) of a process so far in ms, from /proc (Linux); undefined elsewhere. */
export function processCpuMs(pid: number | string): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks (100 Hz on Linux)
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) of a process's main thread so far in ms (/proc/<pid>/task/<pid>/stat); undefined elsewhere. */
export function mainThreadCpuMs(pid: number): number | undefined {
  return processCpuMs(`${pid}/task/${pid}`);
}

/** The most RSS a process has held so far (VmHWM) in whole MB; NaN once it is gone. */
export function peakRssMb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Math.round(Number(m[1]) / 1024) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
