/**
 * The time windows a profiling run wrote (`windows.json` in its profile folder, by
 * bench/ab/storm-profile.ts and bench/ab/suite-profile.ts): a window is one span [from, to] or
 * several, in the profile's clock (µs). What profile-summary.ts and profile-tree.ts read.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Whether an instant of the profile falls inside the window `tag` of `dir` (every instant when it has none). */
export function insideWindow(dir: string, tag: string): (t: number) => boolean {
  const windows = JSON.parse(readFileSync(join(dir, "windows.json"), "utf8")) as Record<
    string,
    [number, number] | Array<[number, number]>
  >;
  const chosen = windows[tag] ?? [0, Number.POSITIVE_INFINITY];
  const spans = (typeof chosen[0] === "number" ? [chosen] : chosen) as Array<[number, number]>;
  return (t) => spans.some(([from, to]) => t >= from && t <= to);
}
