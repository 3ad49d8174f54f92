/**
 * Every hint of the coverage catalogue is true (docs/coverage.md#hints): for each behaviour, the
 * steps file its cause makes (src/coverage/recipes.ts, what `paysandbox coverage --recipe ID`
 * prints) runs on a fresh in-process sandbox, as `paysandbox run --coverage` runs a file, every step
 * passes, and that sandbox's coverage report counts the behaviour. A behaviour whose cause is not
 * one of the acts recipes know fails here (and in the type checker) before it ships.
 */
import { describe, expect, it } from "vitest";
import { catalogue } from "../../src/coverage/catalogue.js";
import { recipeOf } from "../../src/coverage/recipes.js";
import { loadScenarioFile } from "../../src/runner/load.js";
import { runFiles } from "../../src/runner/run.js";
import { scenarioFile } from "./runner.support.js";

describe("every behaviour of the catalogue is caused by its own hint", () => {
  const all = catalogue();
  it("the catalogue is large and every behaviour has a hint", () => {
    expect(all.length).toBeGreaterThan(200);
    for (const b of all) expect(b.hint, b.id).toMatch(/\S/);
  });

  it("each recipe, run on its own sandbox, is counted", async () => {
    const loaded = all.map((b) => {
      const r = loadScenarioFile(scenarioFile(recipeOf(b)));
      if (!r.ok) throw new Error(`${b.id}: ${r.message}`);
      return r.loaded;
    });
    const results = await runFiles(loaded, { coverage: true, parallel: 4 });
    const problems: string[] = [];
    results.forEach((r, i) => {
      const b = all[i]!;
      const failed = r.steps.find((s) => s.status === "failed");
      if (r.error || failed) {
        problems.push(
          `${b.id}: ${r.error ?? `step [${failed?.index}] ${failed?.summary}: ${failed?.message} ${failed?.response ?? ""}`}`,
        );
        return;
      }
      const seen = r.coverage?.behaviours.find((x) => x.id === b.id);
      if (!seen || seen.count === 0) problems.push(`${b.id}: not counted (hint: ${b.hint})`);
    });
    expect(problems).toEqual([]);
  }, 600_000);
});
