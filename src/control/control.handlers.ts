import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, Scoped } from "../http/env.js";
import { explainedBy } from "../http/errors.js";
import { openRoute } from "../http/route-use.js";
import { maskNumber } from "../modules/payments/card.js";
import type { Clock } from "../platform/clock.js";
import { INSTANT_REASON, parseInstant, toIso } from "../platform/clock.js";
import { badRequest, invalidField } from "../platform/errors.js";
import { describeIssues } from "../scenarios/scenario.schema.js";
import type { ScenarioService } from "../scenarios/scenario.service.js";
import { parseDocument } from "../scenarios/scenario.service.js";
import { advanceRoute, clockRoute, healthRoute, listScenariosRoute, loadScenarioRoute, resetRoute } from "./control.routes.js";
import type { ControlService } from "./control.service.js";
import { AdvanceRequestReasons } from "./control.wire.js";

const mask = (number: string) => maskNumber(number);
const YAML_TYPE = /^(application|text)\/(x-)?yaml\b/i;

export function registerSandbox(
  app: OpenAPIHono<AppEnv>,
  of: Scoped<{ clock: Clock; control: ControlService; scenarios: ScenarioService }>,
) {
  app.openapi(healthRoute, (c) => c.json({ status: "ok" as const }, 200));

  app.openapi(resetRoute, async (c) => {
    const { startTime, snapshot } = c.req.valid("json");
    const at = startTime === undefined ? undefined : parseInstant(startTime);
    if (startTime !== undefined && at === undefined) throw invalidField("startTime", INSTANT_REASON);
    await of(c).control.reset({ ...(at === undefined ? {} : { startTime: at }), ...(snapshot ? { snapshot } : {}) });
    return c.json({ status: "reset" as const, now: toIso(of(c).clock.nowMs()) }, 200);
  });

  app.openapi(clockRoute, (c) => c.json({ now: toIso(of(c).clock.nowMs()), scale: of(c).clock.scale }, 200));

  openRoute(
    app,
    advanceRoute,
    async (c) => c.json(await of(c).control.advance(c.req.valid("json"), c.req.raw.signal), 200),
    explainedBy(AdvanceRequestReasons),
  );

  const source = "POST /_sandbox/scenarios";
  app.openapi(
    loadScenarioRoute,
    async (c) => {
      const yaml = YAML_TYPE.test(c.req.header("content-type") ?? "");
      const document = yaml ? parseDocument(await c.req.text(), `${source} (YAML)`) : c.req.valid("json");
      const s = of(c).scenarios.load(document, source);
      return c.json(
        { name: s.name, merchants: s.merchants.map((m) => m.merchantKey), cards: s.cards.length, rules: s.rules.length },
        200,
      );
    },
    // the route's schema is the scenario format: a JSON body it refuses reads as a refused file does (docs/scenarios.md)
    (result) => {
      if (!result.success) throw badRequest(`Invalid scenario (${source}): ${describeIssues(result.error)}`);
      return undefined;
    },
  );

  app.openapi(listScenariosRoute, (c) =>
    c.json(
      of(c)
        .scenarios.loaded()
        .map(({ scenario, loadedAt }) => ({
          name: scenario.name,
          ...(scenario.description === undefined ? {} : { description: scenario.description }),
          merchants: scenario.merchants.map(({ merchantSecret: _secret, ...m }) => m),
          cards: scenario.cards.map((card) => ({ ...card, number: mask(card.number) })),
          rules: scenario.rules.map((rule) => (rule.card === undefined ? rule : { ...rule, card: mask(rule.card) })),
          loadedAt: toIso(loadedAt),
        })),
      200,
    ),
  );
}
