// Import boundaries (DESIGN.md §6): imports go one way, schedule ← api ← policy ← kube ← {controller, gitops, server} ← cli,
// and no module takes part in an import cycle. `npm run lint` runs this through dependency-cruiser.

/**
 * What each layer of src/ may import from src/ (itself included); anything else in src/ is upward or sideways.
 * @type {Record<string, string[]>}
 */
const LAYERS = {
  // The pure time engine: nothing of ours below it.
  schedule: ["schedule"],
  // CRD types, schemas, constants and defaults.
  api: ["schedule", "api"],
  // The domain rules every surface shares.
  policy: ["schedule", "api", "policy"],
  // The only place that talks to the Kubernetes API.
  kube: ["schedule", "api", "policy", "kube"],
  controller: ["schedule", "api", "policy", "kube", "controller"],
  // check finds the kustomize that `npm run tools` built (src/devenv/tools.ts) when none is on PATH.
  gitops: ["schedule", "api", "policy", "kube", "devenv", "gitops"],
  // The Config Service edits the fleet's repository through the gitops repository model.
  server: ["schedule", "api", "policy", "kube", "gitops", "server"],
  // The development environment (test control plane, tool builds, git server): beside the surfaces, used by demo, cli, tests and benchmarks.
  devenv: ["schedule", "api", "policy", "kube", "devenv"],
  // `fluxgate demo`: a control plane and a controller driven through a scripted story.
  demo: ["schedule", "api", "policy", "kube", "controller", "gitops", "server", "devenv", "demo"],
  // The top: one file per command.
  cli: ["schedule", "api", "policy", "kube", "controller", "gitops", "server", "devenv", "demo", "cli"],
};

const layerRules = Object.entries(LAYERS).map(([layer, allowed]) => ({
  name: `layer-${layer}`,
  comment: `src/${layer} may import only src/{${allowed.join(",")}} (DESIGN.md §6: imports go one way)`,
  severity: "error",
  from: { path: `^src/${layer}/` },
  // src/errors.ts (the one error vocabulary: an input error, a failure) imports nothing and is below every layer.
  to: { path: "^src/", pathNot: [`^src/(${allowed.join("|")})/`, "^src/errors\\.ts$"] },
}));

// The Config Service's rooms (DESIGN.md §6): routes/ (one Hono sub-app per resource) on top, then http/ (errors,
// auth, bodies, paging), then the rooms that know no HTTP: git/, model/, views/, engine/, status/. Each room
// below lists the rooms of src/server it may not import; the files at src/server's top level (app, server,
// service, metrics, paths) tie them together.
const SERVER_ROOMS = {
  // The HTTP layer serves the routes; it never imports one.
  http: ["routes", "dashboard"],
  // Below the HTTP layer nothing knows HTTP: no HttpError, no Hono context, no route.
  git: ["routes", "http", "dashboard", "engine", "status"],
  model: ["routes", "http", "dashboard", "status"],
  views: ["routes", "http", "dashboard", "git", "status"],
  engine: ["routes", "http", "dashboard", "status"],
  status: ["routes", "http", "dashboard", "engine"],
};

const serverRoomRules = Object.entries(SERVER_ROOMS).map(([room, forbidden]) => ({
  name: `server-${room}`,
  comment: `src/server/${room} may not import src/server/{${forbidden.join(",")}} (DESIGN.md §6: the Config Service's rooms import one way)`,
  severity: "error",
  from: { path: `^src/server/${room}/` },
  to: { path: `^src/server/(${forbidden.join("|")})/` },
}));

/* global module */
/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "A module must not import itself through others: a cycle hides which one is the lower layer.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    ...serverRoomRules,
    {
      name: "server-routes-only-from-the-app",
      comment:
        "A route file is a Hono sub-app that app.ts mounts: nothing else imports one (shared parts go to http/, model/ or views/). The dashboard's client may import a route's answer type.",
      severity: "error",
      from: { path: "^src/server/", pathNot: ["^src/server/(app|routes/.*)[.]ts$", "^src/server/dashboard/client/"] },
      to: { path: "^src/server/routes/" },
    },
    {
      name: "server-http-error-at-the-edge",
      comment:
        "HttpError belongs to the HTTP layer: the Git layer, the model, the planners and the live reads throw domain errors (src/errors.ts, src/server/model/errors.ts) that http/errors.ts maps to statuses.",
      severity: "error",
      from: { path: "^src/server/", pathNot: "^src/server/(http|routes|dashboard)/|^src/server/app[.]ts$" },
      to: { path: "^src/server/http/errors[.]ts$" },
    },
    {
      name: "src-not-to-tests",
      comment: "The product never imports tests, benchmarks or scripts.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench|scripts)/" },
    },
    {
      name: "bench-not-to-test",
      comment: "Benchmarks use the product and the development environment (src/devenv), not the tests' helpers.",
      severity: "error",
      from: { path: "^bench/" },
      to: { path: "^test/" },
    },
    {
      name: "tests-share-through-support",
      comment:
        "Helpers one kind of test shares with another (unit, integration, e2e, browser) live in test/support (or test/harness), not in another kind's folder.",
      severity: "error",
      from: { path: "^test/(unit|integration|e2e|browser)/" },
      to: { path: "^test/(unit|integration|e2e|browser)/", pathNot: "^test/$1/" },
    },
    {
      name: "cli-runs-the-controller-only",
      comment: "The CLI and the demo start the controller (its entry, logger, metrics and probes); its reconcilers, gate and views are not theirs to call.",
      severity: "error",
      from: { path: "^src/(cli|demo)/" },
      to: { path: "^src/controller/", pathNot: "^src/controller/(controller|metrics|http)[.]ts$" },
    },
    {
      name: "client-node-only-in-kube",
      comment: "src/kube is the only module that talks to the Kubernetes API (DESIGN.md §6).",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/kube/" },
      to: { path: "node_modules/@kubernetes/client-node/" },
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that resolves to nothing is a typo or a missing dependency.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Type-only imports count: a cycle through types still ties the modules together.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".json"],
    },
    exclude: { path: "^dist/" },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
