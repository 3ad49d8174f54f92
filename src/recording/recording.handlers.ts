/**
 * `GET /_sandbox/recording` (docs/recording.md): the sandbox's session since its last reset as a steps
 * file, YAML (with comments: where the session came from, a step that cannot replay as is) or JSON.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { accepts } from "hono/accepts";
import type { Node as YamlNode } from "yaml";
import type { AppEnv, Scoped } from "../http/env.js";
import { parseInstant } from "../platform/clock.js";
import { BUILTIN_MERCHANT, TEST_CARDS } from "../platform/fixtures.js";
import { loadYaml } from "../platform/nesting.js";
import type { ScenarioService } from "../scenarios/scenario.service.js";
import type { Recorder } from "./recorder.js";
import { recordingRoute } from "./recording.routes.js";
import { type ExportedFile, exportSteps } from "./steps-export.js";
import { commentText, yamlText } from "./yaml-escape.js";

/** The file as YAML, its header and each step's note as comments. */
export function recordingYaml(file: ExportedFile): string {
  const doc = new (loadYaml().Document)(file.document); // yaml loads on first use, not at start
  doc.commentBefore = ` ${commentText(file.header).replaceAll("\n", "\n ")}`;
  file.steps.forEach((s, i) => {
    if (!s.comment) return;
    const node = doc.getIn(["steps", i], true) as YamlNode | undefined;
    if (node) node.commentBefore = ` ${commentText(s.comment).replaceAll("\n", "\n ")}`;
  });
  // control characters (a card holder's name may hold one) as escapes: any YAML reader takes the file
  return yamlText(doc);
}

/** The file as JSON (no comments there: the header goes into `description`, a step's note into its name). */
export function recordingJson(file: ExportedFile): Record<string, unknown> {
  return {
    ...file.document,
    description: `${file.document.description}. ${file.header.replaceAll("\n", " ")}`,
    steps: file.steps.map((s) =>
      s.comment ? { ...s.step, name: `${s.step.name} [${s.comment.replaceAll("\n", "; ")}]` } : s.step,
    ),
  };
}

/** What the recording's export reads: the calls and deliveries kept, and the loaded scenarios. */
export interface RecordingDeps {
  recorder: Recorder;
  scenarios: Pick<ScenarioService, "all">;
  publicUrl: () => string;
}

/** The steps file of the calls made between two virtual instants (the route's and the dashboard's). */
export function recordingFile(ctx: RecordingDeps, from = 0, to = Number.MAX_SAFE_INTEGER): ExportedFile {
  const scenarios = ctx.scenarios.all();
  return exportSteps({
    name: "recording",
    source: ctx.publicUrl(),
    calls: ctx.recorder.calls(from, to),
    deliveries: ctx.recorder.deliveries(from, to),
    scenarios,
    builtinMerchantKey: BUILTIN_MERCHANT.merchantKey,
    testCards: [...TEST_CARDS.map((t) => t.number), ...scenarios.flatMap((s) => s.cards.map((card) => card.number))],
  });
}

export function registerRecording(app: OpenAPIHono<AppEnv>, of: Scoped<RecordingDeps>) {
  app.openapi(recordingRoute, (c) => {
    const query = c.req.valid("query");
    const file = recordingFile(
      of(c),
      query.from === undefined ? undefined : parseInstant(query.from),
      query.to === undefined ? undefined : parseInstant(query.to),
    );
    const json = accepts(c, {
      header: "Accept",
      supports: ["application/yaml", "application/json"],
      default: "application/yaml",
    });
    if (json === "application/json") return c.json(recordingJson(file), 200);
    return c.body(recordingYaml(file), 200, { "content-type": "application/yaml; charset=utf-8" });
  });
}
