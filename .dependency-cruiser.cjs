/**
 * The dependency rule of docs/architecture.md ("Layers"), checked in `npm test`:
 *   entry points (main, app, context, compose, cli, runner, testing)
 *     → the features: src/modules (the gateway API, with its 3DS and HPP pages), src/control (the
 *       `/_sandbox` control plane), src/sandboxes (the registry of isolated sandboxes),
 *       src/dashboard, src/guide, and every HTTP edge (`*.routes.ts`, `*.handlers.ts`) wherever it sits
 *       → the machinery the features share: src/webhooks, src/scheduler, src/scenarios, src/events,
 *         src/recording
 *         → src/http, src/platform, src/db (and config.ts, logger.ts)
 * and no import cycles, neither between files nor between folders (a folder that imports another
 * that imports it back is one folder in two places: its lower half moves down). Nothing below the entry points imports them, not even a type: a handler's
 * register function declares the few services it uses, and the composition root's AppContext fits.
 * An area's routes and handlers sit in the folder of the service they serve (events/ and recording/
 * hold theirs), so they belong to the upper layer by their name, not their folder; where they need
 * the modules' schemas (the webhook journal's and the callbacks' documents), in control/, since a
 * folder's cycles count its routes too.
 */
const { ENTRY, UPPER, EDGE, MIDDLE, LOWER } = require("./scripts/layers.cjs");

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
      name: "no-folder-cycles",
      severity: "error",
      comment:
        "Folders are acyclic: if a imports b, nothing in b imports a, not even a type. Move what both need into the lower one (a type the platform declares, a store the database owns).",
      scope: "folder",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "upper-not-to-entry",
      severity: "error",
      comment:
        "The features (modules/, control/, sandboxes/, dashboard/, guide/, every routes and handlers file) must not import the entry points, not even a type: a handler declares the few services it uses.",
      from: { path: UPPER },
      to: { path: ENTRY },
    },
    {
      name: "middle-not-up",
      severity: "error",
      comment:
        "webhooks/, scheduler/, scenarios/ sit below the modules: share a type or an interface from a lower layer instead.",
      from: { path: MIDDLE, pathNot: EDGE },
      to: { path: `${ENTRY}|${UPPER}` },
    },
    {
      name: "no-old-names",
      severity: "error",
      comment:
        "src/sandbox/ was split into control/, dashboard/ and guide/ (and the shopper pages went to their modules): no folder a letter away from src/sandboxes/ again.",
      from: { path: "^src/" },
      to: { path: "^src/sandbox/" },
    },
    {
      name: "lower-not-up",
      severity: "error",
      comment: "http/, platform/, db/ are the bottom: they import nothing above them.",
      from: { path: LOWER },
      to: { path: `${ENTRY}|${UPPER}|${MIDDLE}` },
    },
    {
      name: "feature-not-to-others-routes",
      severity: "error",
      comment:
        "A feature reaches another feature through its service, never its routes: what a route takes (fault rules, recording) is declared beside it and mounted with it (src/http/route-use.ts), not listed by another folder.",
      from: { path: "^src/(modules/[^/]+|[^/]+)/" },
      to: { path: "\\.routes\\.ts$", pathNot: "^src/$1/" },
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
