/**
 * docs/snapshots.md#what-a-load-checks, as a property: a world's snapshot with its SQLite image
 * damaged (bytes flipped anywhere or among those in use, the image cut short, a page copied over
 * another or zeroed, the database header flipped, one value of one row made odd) and its checksum
 * made right again. Its load is never a 5xx: a 400 `Invalid snapshot: …` that creates nothing, or a
 * sandbox on which every call of a test's day (auth, a payment, statuses, the journal, the
 * recording, an advance, its snapshot loaded again, a fork, both resets, its deletion) is not a 5xx
 * either. `bench/snapshot-damage.ts` runs the same over the built server, 100 cases and more.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";
import {
  buildWorld,
  callsOn,
  damageOf,
  imageOf,
  loadFile,
  resign,
  type Send,
  sendVia,
  type World,
} from "../helpers/snapshot-damage.js";

let s: TestServer;
let world: World;
const send: Send = (...args) => sendVia((req) => s.server.fetch(req, {}), "http://sandbox.test")(...args);

beforeAll(async () => {
  s = makeServer({ config: { maxSandboxes: 1000 } });
  world = await buildWorld(send);
});
afterAll(async () => {
  await s?.close();
});

describe("a damaged snapshot, re-signed", () => {
  it("is refused with a 400 that creates nothing, or loads a sandbox whose calls never answer 5xx", async () => {
    const image = imageOf(world.file);
    await fc.assert(
      fc.asyncProperty(damageOf(image), async (damage) => {
        const listed = (await send("GET", "/_sandbox/sandboxes")).text;
        const res = await loadFile(send, resign(world.file, damage.image));
        if (res.status !== 201) {
          expect(res.status, `${damage.what}: ${res.text}`).toBe(400);
          expect(JSON.parse(res.text).errorMessage).toMatch(/^Invalid snapshot: /);
          expect((await send("GET", "/_sandbox/sandboxes")).text).toBe(listed);
          return;
        }
        const { id, baseUrl } = JSON.parse(res.text) as { id: string; baseUrl: string };
        for (const c of await callsOn(send, world, id, new URL(baseUrl).pathname)) {
          expect(c.status, `${damage.what}: ${c.call} → ${c.text}`).toBeLessThan(500);
        }
        expect((await send("GET", "/_sandbox/sandboxes")).text).toBe(listed);
      }),
      { numRuns: 20 },
    );
  }, 120_000);
});
