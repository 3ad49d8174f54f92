/**
 * `paysandbox schema` (docs/scenarios.md): the JSON Schema of scenario files, generated from the zod
 * schema the sandbox validates them with (one source), for editors. scenarios/scenario.schema.json
 * is this output, kept in sync by a test.
 */
import { z } from "zod";
import { scenarioSchema } from "../scenarios/scenario.schema.js";

export function scenarioJsonSchema(): Record<string, unknown> {
  // io "input": what a file may contain (defaults make keys optional); refinements are not JSON
  // Schema, so they are left to `paysandbox run` and the loader.
  const schema = z.toJSONSchema(scenarioSchema, { io: "input", unrepresentable: "any", target: "draft-07" });
  return {
    ...schema,
    title: "paysandbox scenario file",
    description:
      "merchants, fxRates, cards and rules to load; steps for `paysandbox run` (see docs/scenarios.md and docs/run.md)",
  };
}
