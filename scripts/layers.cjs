/**
 * The layers of src/, top first: .dependency-cruiser.cjs enforces them (`npm run lint:deps`) and
 * scripts/diagram.mjs draws them in docs/architecture.md. Dependencies point down only.
 */
const ENTRY = "^src/(main|app|context|compose|cli)\\.tsx?$|^src/(cli|runner|testing)/";
const EDGE = "\\.(routes|handlers)\\.tsx?$";
const FEATURES = "^src/(control|coverage|dashboard|guide|sandboxes|snapshots|modules)/";
const UPPER = `${FEATURES}|${EDGE}`;
const MIDDLE = "^src/(webhooks|scheduler|scenarios|events|recording)/";
const LOWER = "^src/(http|platform|db)/|^src/(config|logger)\\.ts$";

const layers = [
  { name: "entry points", what: "start, compose, serve, run", path: ENTRY },
  { name: "features", what: "what a user calls", path: UPPER, folders: FEATURES, edge: EDGE },
  { name: "machinery", what: "what the features share", path: MIDDLE },
  { name: "base", what: "HTTP, storage, plain helpers", path: LOWER },
];

module.exports = { ENTRY, EDGE, FEATURES, UPPER, MIDDLE, LOWER, layers };
