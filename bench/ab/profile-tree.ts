/**
 * The call tree of a `--cpu-prof` profile inside one window of bench/ab/storm-profile.ts, each node's
 * inclusive ms a call, down to `MIN` ms: `npx tsx bench/ab/profile-tree.ts <dir> <window> <calls> [min] [file filter]`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { insideWindow } from "./windows.js";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const [dir = "/tmp/sc-prof", tag = "create", perArg = "1", minArg = "0.05", only = ".0.0"] = process.argv.slice(2);
const per = Number(perArg);
const min = Number(minArg);
const inside = insideWindow(dir, tag);
for (const f of readdirSync(dir).filter((n) => n.endsWith(".cpuprofile") && n.includes(only))) {
  const p = JSON.parse(readFileSync(join(dir, f), "utf8")) as {
    nodes: Node[];
    samples: number[];
    timeDeltas: number[];
    startTime: number;
  };
  const self = new Map<number, number>();
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    if (inside(t)) self.set(p.samples[i] as number, (self.get(p.samples[i] as number) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const incl = new Map<number, number>();
  const total = (id: number): number => {
    const n = byId.get(id) as Node;
    let s = self.get(id) ?? 0;
    for (const c of n.children ?? []) s += total(c);
    incl.set(id, s);
    return s;
  };
  const rootId = p.nodes[0]?.id as number;
  total(rootId);
  console.log(`### ${f}`);
  const walk = (id: number, depth: number) => {
    const n = byId.get(id) as Node;
    const v = (incl.get(id) ?? 0) / 1000 / per;
    if (v < min) return;
    const u = n.callFrame.url.replace(/^.*\/node_modules\//, "nm:").replace(/^.*\/dist\//, "dist:");
    console.log(
      `${"  ".repeat(depth)}${v.toFixed(3)} (self ${((self.get(id) ?? 0) / 1000 / per).toFixed(3)}) ${n.callFrame.functionName || "(anon)"} ${u}:${n.callFrame.lineNumber + 1}`,
    );
    for (const c of [...(n.children ?? [])].sort((a, b) => (incl.get(b) ?? 0) - (incl.get(a) ?? 0))) walk(c, depth + 1);
  };
  walk(rootId, 0);
}
