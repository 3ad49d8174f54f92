/**
 * The damaged-snapshot drill (docs/snapshots.md#what-a-load-checks): a world is built in the built
 * server (`node dist/main.js start` on a file database), its snapshot saved, then DRILL_CASES (100)
 * copies of it each damaged in its SQLite image (bytes flipped anywhere or among those in use, the
 * image cut short, a page copied over another or zeroed, the database header flipped) and re-signed
 * (lengths and SHA-256 made right, as anyone can). Each is loaded; a load that is refused must be a 400
 * `Invalid snapshot: …` that leaves nothing (no sandbox listed, no file in the sandboxes' folder); a
 * load that succeeds is followed by the calls of test/helpers/snapshot-damage.ts (auth, a payment,
 * statuses, journal, recording, an advance, its snapshot loaded again, a fork, resets, deletion).
 *
 * Prints the counts: loads refused (by reason) and loaded, calls by status class, and every 5xx with
 * the damage that led to it. Target: 0 × 5xx. Exit code 1 on any 5xx or a refusal that left something.
 *
 * `npx tsx bench/snapshot-damage.ts` after `npm run build` (`npm run bench -- snapshot-damage` builds);
 * DRILL_CASES=500 for more, DRILL_SEED=n for another sequence (the default is fixed: the same 100 each run),
 * DRILL_IN_PROCESS=1 to run the server in this process (src/compose.ts on `:memory:`, error stacks shown),
 * DRILL_VERBOSE=1 to print each refusal's reason and each 4xx of the calls, DRILL_DAMAGE=values for
 * value changes only (one value of one row set to an odd one: what the value rules are for).
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import pino from "pino";
import { createServer } from "../src/compose.js";
import { defaultConfig } from "../src/config.js";
import { ManualClock } from "../src/platform/clock.js";
import {
  buildWorld,
  type Called,
  callsOn,
  damageOf,
  imageOf,
  loadFile,
  resign,
  type Send,
  sendVia,
  valueChanged,
} from "../test/helpers/snapshot-damage.js";
import { emit, startSandbox } from "./lib.js";

const CASES = Number(process.env.DRILL_CASES ?? 100);
const SEED = Number(process.env.DRILL_SEED ?? 39);
const inProcess = process.env.DRILL_IN_PROCESS === "1";
const verbose = process.env.DRILL_VERBOSE === "1";

/** What errors the in-process server logged (its 5xx's stacks). */
const logged: string[] = [];

async function server(): Promise<{ send: Send; files: () => string[]; stop: () => Promise<void> }> {
  if (inProcess) {
    const logger = pino({ level: "error" }, { write: (line: string) => logged.push(line) } as unknown as NodeJS.WritableStream);
    const s = createServer({
      config: defaultConfig({ publicUrl: "http://drill.test", db: ":memory:", maxSandboxes: 1000 }),
      clock: new ManualClock(Date.UTC(2027, 0, 15, 12)),
      wallNow: () => Date.UTC(2026, 10, 1),
      logger,
    });
    const send = sendVia((req) => s.fetch(req, {}), "http://drill.test");
    return {
      send,
      files: () => [],
      stop: async () => {
        await s.closeSandboxes(0);
        await s.root.webhooks.close();
        s.root.db.$client.close();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-drill-"));
  const running = await startSandbox({ dbPath: join(dir, "drill.db"), env: { SANDBOX_MAX_SANDBOXES: "1000" } });
  const send = sendVia(fetch, running.url);
  const folder = join(dir, "drill.db-sandboxes");
  return {
    send,
    files: () => {
      try {
        return readdirSync(folder);
      } catch {
        return [];
      }
    },
    stop: async () => {
      logged.push(
        ...running
          .output()
          .split("\n")
          .filter((l) => /"level":50|error/i.test(l)),
      );
      await running.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// the in-process server's webhook thread is unref'd: this keeps the process up while an answer waits on it
const keepAlive = setInterval(() => {}, 1_000);
const { send, files, stop } = await server();
let bad = 0;
try {
  const world = await buildWorld(send);
  const image = imageOf(world.file);
  console.log(`world: snapshot of ${world.file.length} bytes (image ${image.length}); ${CASES} damaged copies, seed ${SEED}`);
  const kinds = process.env.DRILL_DAMAGE === "values" ? valueChanged(image) : damageOf(image);
  const damages = fc.sample(kinds, { numRuns: CASES, seed: SEED });
  const reasons = new Map<string, number>();
  let loaded = 0;
  const calls = { "2xx": 0, "4xx": 0, "5xx": 0 };
  const fives: string[] = [];
  const t0 = performance.now();
  for (const [i, d] of damages.entries()) {
    const before = (await send("GET", "/_sandbox/sandboxes")).text;
    const filesBefore = files().length;
    const res = await loadFile(send, resign(world.file, d.image));
    if (res.status === 201) {
      loaded++;
      const { id, baseUrl } = JSON.parse(res.text) as { id: string; baseUrl: string };
      let made: Called[];
      try {
        made = await callsOn(send, world, id, new URL(baseUrl).pathname);
      } catch (err) {
        made = [{ call: "the calls", status: 599, text: String(err) }];
      }
      for (const c of made) {
        const cls = c.status >= 500 ? "5xx" : c.status >= 400 ? "4xx" : "2xx";
        calls[cls]++;
        if (cls === "5xx") {
          fives.push(`case ${i} (${d.what}): ${c.call} → ${c.status} ${c.text}`);
          console.error(`5xx: ${fives.at(-1)}`);
        }
        if (cls === "4xx" && verbose) console.log(`case ${i} (${d.what}): ${c.call} → ${c.status} ${c.text}`);
      }
      continue;
    }
    const message = (() => {
      try {
        return String((JSON.parse(res.text) as { errorMessage?: unknown }).errorMessage);
      } catch {
        return res.text.slice(0, 200);
      }
    })();
    if (res.status >= 500) {
      fives.push(`case ${i} (${d.what}): load → ${res.status} ${message}`);
      console.error(`5xx: ${fives.at(-1)}`);
    } else if (res.status !== 400 || !message.startsWith("Invalid snapshot: ")) {
      bad++;
      console.error(`case ${i} (${d.what}): load → ${res.status} ${message}`);
    }
    const after = (await send("GET", "/_sandbox/sandboxes")).text;
    if (after !== before || files().length !== filesBefore) {
      bad++;
      console.error(`case ${i} (${d.what}): refused but left something behind`);
    }
    // the reason's kind, without the part that names a page, a row or a byte
    if (verbose) console.log(`case ${i} (${d.what}): ${res.status} ${message}`);
    const kind = message.replace(/^Invalid snapshot: /, "").replace(/ \(.*$/s, "");
    reasons.set(kind, (reasons.get(kind) ?? 0) + 1);
  }
  const seconds = (performance.now() - t0) / 1000;
  const refused = CASES - loaded;
  console.log(`loads: ${refused} refused (400), ${loaded} loaded, in ${seconds.toFixed(1)} s`);
  for (const [kind, count] of [...reasons].sort((a, b) => b[1] - a[1])) console.log(`  ${count} × ${kind}`);
  console.log(`calls on what loaded: ${calls["2xx"]} 2xx, ${calls["4xx"]} 4xx, ${calls["5xx"]} 5xx`);
  if (fives.length > 0) for (const l of logged.slice(0, 20)) console.error(l.slice(0, 2000));
  const fiveCount = fives.length;
  console.log(`5xx: ${fiveCount} (target 0): ${fiveCount === 0 ? "ok" : "MISSED"}`);
  emit("snapshot-damage", {
    cases: CASES,
    refused,
    loaded,
    calls: calls["2xx"] + calls["4xx"] + calls["5xx"],
    errors: fiveCount,
    target: "0 5xx",
    pass: fiveCount === 0 && bad === 0,
  });
  if (fiveCount > 0) bad++;
} finally {
  await stop();
  clearInterval(keepAlive);
}
process.exit(bad > 0 ? 1 : 0);
