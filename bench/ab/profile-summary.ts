/**
 * Self and inclusive time by function and by file of `--cpu-prof` profiles, restricted to the
 * windows bench/ab/storm-profile.ts wrote (`<dir>/windows.json`), each divided by `PER` calls.
 *
 *   npx tsx bench/ab/profile-summary.ts /tmp/sc-prof create 300
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { insideWindow } from "./windows.js";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

const [dir = "/tmp/sc-prof", tag = "create", perArg = "1", topArg = "40"] = process.argv.slice(2);
const per = Number(perArg);
const inside = insideWindow(dir, tag);

for (const f of readdirSync(dir).filter((n) => n.endsWith(".cpuprofile"))) {
  const p = JSON.parse(readFileSync(join(dir, f), "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfF = new Map<string, number>();
  const inclF = new Map<string, number>();
  const selfFile = new Map<string, number>();
  let t = p.startTime;
  let total = 0;
  const short = (u: string) =>
    u
      .replace(/^.*\/node_modules\//, "nm:")
      .replace(/^.*\/dist\//, "dist:")
      .replace(/^file:\/\//, "");
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    t += dt;
    if (!inside(t)) continue;
    const node = byId.get(p.samples[i] as number);
    if (!node) continue;
    const key = (n: Node) => `${n.callFrame.functionName || "(anon)"} ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
    if (node.callFrame.functionName === "(idle)") continue;
    total += dt;
    selfF.set(key(node), (selfF.get(key(node)) ?? 0) + dt);
    selfFile.set(
      short(node.callFrame.url) || node.callFrame.functionName,
      (selfFile.get(short(node.callFrame.url) || node.callFrame.functionName) ?? 0) + dt,
    );
    const seen = new Set<string>();
    for (let n: Node | undefined = node; n; n = byId.get(parent.get(n.id) ?? -1)) {
      const k = key(n);
      if (seen.has(k)) continue;
      seen.add(k);
      inclF.set(k, (inclF.get(k) ?? 0) + dt);
    }
  }
  if (total === 0) continue;
  const ms = (us: number) => (us / 1000 / per).toFixed(3);
  const top = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `  ${ms(v).padStart(8)}  ${k}`)
      .join("\n");
  console.log(`\n### ${f}: ${tag}, busy ${ms(total)} ms a call (${per} calls)`);
  console.log(`-- self by file\n${top(selfFile, 25)}`);
  console.log(`-- self by function\n${top(selfF, Number(topArg))}`);
  console.log(`-- inclusive by function\n${top(inclF, Number(topArg) + 20)}`);
}
