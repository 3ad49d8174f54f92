/**
 * A process and everything it started, read from /proc (Linux), for the tests of how a server
 * started through npm or npx stops (docs/configuration.md#state-and-logs).
 */
import { readdirSync, readFileSync } from "node:fs";

/** pid → parent pid of every process now alive. */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // the fields after the command, which is in parentheses and may hold spaces
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      out.set(Number(name), ppid);
    } catch {
      // it ended while we looked
    }
  }
  return out;
}

/** `pid` and its descendants now alive. */
export function processTree(pid: number): number[] {
  const all = parents();
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const [child, parent] of all) if (parent === tree[i]) tree.push(child);
  }
  return tree.filter((p) => all.has(p));
}

/** The pids of `pids` still alive (a zombie counts as ended). */
export function alive(pids: number[]): number[] {
  return pids.filter((p) => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z") return false;
      // a process whose memory is already released (an empty command line; none of ours is a kernel
      // thread) is in its last step of exiting: on a loaded machine the pipes close just before it
      return readFileSync(`/proc/${p}/cmdline`, "utf8") !== "";
    } catch {
      return false;
    }
  });
}

/** The command line of a pid, for a failure's message. */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "(ended)";
  }
}
