/**
 * The dependency rule of ARCHITECTURE ("Dependencies point down"), checked in `npm test`:
 *   entry points (main, app, context, compose, cli, runner, testing)
 *     → src/sandbox, src/sandboxes and src/modules
 *       → src/webhooks, src/scheduler, src/scenarios, src/events, src/recording
 *         → src/http, src/platform, src/db (and config.ts, logger.ts)
 * and no import cycles. Nothing below the entry points imports them, not even a type: a handler's
 * register function declares the few services it uses, and the composition root's AppContext fits.
 */
const ENTRY = "^src/(main|app|context|compose|cli)\\.tsx?$|^src/(cli|runner|testing)/";
const UPPER = "^src/(sandbox|sandboxes|modules)/";
const MIDDLE = "^src/(webhooks|scheduler|scenarios|events|recording)/";
const LOWER = "^src/(http|platform|db)/|^src/(config|logger)\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Import cycles hide the order things are built in; break them with an interface in the lower layer.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "upper-not-to-entry",
      severity: "error",
      comment:
        "sandbox/, sandboxes/ and modules/ must not import the entry points, not even a type: a handler declares the few services it uses.",
      from: { path: UPPER },
      to: { path: ENTRY },
    },
    {
      name: "middle-not-up",
      severity: "error",
      comment:
        "webhooks/, scheduler/, scenarios/ sit below the modules: share a type or an interface from a lower layer instead.",
      from: { path: MIDDLE },
      to: { path: `${ENTRY}|${UPPER}` },
    },
    {
      name: "lower-not-up",
      severity: "error",
      comment: "http/, platform/, db/ are the bottom: they import nothing above them.",
      from: { path: LOWER },
      to: { path: `${ENTRY}|${UPPER}|${MIDDLE}` },
    },
    {
      name: "service-not-to-routes",
      severity: "error",
      comment:
        "A service never imports a routes file, not even a type: the bodies' schemas and their inferred types live in the module's <area>.wire.ts, which routes and service both import.",
      from: { path: "\\.(service|billing)\\.ts$" },
      to: { path: "\\.routes\\.ts$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: "^src/",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
