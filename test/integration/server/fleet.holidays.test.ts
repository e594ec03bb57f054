// The Config Service's fleet model with one fleet window of public holidays, rendered by the real kustomize: each cluster's timeline and the fleet's .ics
// feed freeze that cluster's own country's holidays, named, from its labels in fluxgate.yaml.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { openFleetFolder, type Served } from "../../support/fleet-folder.ts";

const CLUSTERS: ReadonlyArray<[string, string, string]> = [
  ["edge-munich", "DE", "BY"],
  ["edge-berlin", "DE", "BE"],
  ["edge-lyon", "FR", ""],
  ["edge-newyork", "US", ""],
];
const RANGE = "from=2026-06-01T00:00:00Z&to=2026-07-20T00:00:00Z";

let served: Served;

before(async () => {
  const files = new Map<string, string>();
  const entries = CLUSTERS.map(
    ([name, country, sub]) => `  - {name: ${name}, path: clusters/${name}, timeZone: UTC, labels: {country: ${country}, subdivision: "${sub}"}}`,
  );
  files.set("fluxgate.yaml", `apiVersion: fluxgate.io/v1alpha1\nkind: Repository\ntypes:\n  - {name: rw, window: true}\nclusters:\n${entries.join("\n")}\n`);
  files.set(
    "fleet/windows/public-holidays/public-holidays.yaml",
    "apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata:\n  name: public-holidays\n  namespace: flux-system\n  labels: {fluxgate.io/fleet-window: public-holidays}\n  annotations: {fluxgate.io/fleet-selector: country}\nspec:\n  freezes:\n    - holidays: {fromClusterLabels: {country: country, subdivision: subdivision}}\n  targets: [{kind: Kustomization, name: apps-rw}]\n",
  );
  files.set(
    "fleet/windows/public-holidays/kustomization.yaml",
    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - public-holidays.yaml\n",
  );
  for (const [name] of CLUSTERS) {
    files.set(
      `clusters/${name}/windows/kustomization.yaml`,
      "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../../../fleet/windows/public-holidays\n",
    );
  }
  served = await openFleetFolder({ seed: { files, message: "One holiday window for four clusters in three countries" } });
});

after(async () => {
  await served?.close();
});

async function get(path: string): Promise<{ status: number; text: string; body: any }> {
  const response = await fetch(`${served.url}${path}`, { headers: { authorization: `Bearer ${served.tokens.viewer}` } });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null; // a calendar
  }
  return { status: response.status, text, body };
}

test("each cluster's timeline freezes its own country's holidays from its labels, named", async () => {
  const freezes = async (cluster: string): Promise<string[]> => {
    const r = await get(`/api/v1/clusters/${cluster}/timeline?${RANGE}`);
    assert.equal(r.status, 200, r.text);
    const w = (r.body.windows as Array<{ name: string; valid: boolean; freezes: Array<{ start: string; reason?: string }> }>).find(
      (x) => x.name === "public-holidays",
    );
    assert.equal(w?.valid, true, `${cluster}: ${JSON.stringify(w)}`);
    return (w?.freezes ?? []).map((f) => `${f.start.slice(0, 10)} ${f.reason ?? ""}`);
  };
  assert.deepEqual(await freezes("edge-munich"), ["2026-06-04 Fronleichnam"]);
  assert.deepEqual(await freezes("edge-berlin"), []);
  assert.deepEqual(await freezes("edge-lyon"), ["2026-07-14 Fête Nationale de la France"]);
  assert.deepEqual(await freezes("edge-newyork"), ["2026-06-19 Juneteenth", "2026-07-03 Independence Day (substitute day)", "2026-07-04 Independence Day"]);
});

test("the fleet's .ics feed has an event per holiday for the clusters that keep it", async () => {
  const r = await get(`/api/v1/fleet/calendar.ics?${RANGE}`);
  assert.equal(r.status, 200, r.text);
  const text = r.text.replace(/\r\n[ \t]/g, "");
  const summaries = text.split("\r\n").filter((l) => l.startsWith("SUMMARY:Frozen"));
  assert.deepEqual(summaries.sort(), [
    "SUMMARY:Frozen: public-holidays on edge-lyon (Fête Nationale de la France)",
    "SUMMARY:Frozen: public-holidays on edge-munich (Fronleichnam)",
    "SUMMARY:Frozen: public-holidays on edge-newyork (Independence Day (substitute day))",
    "SUMMARY:Frozen: public-holidays on edge-newyork (Independence Day)",
    "SUMMARY:Frozen: public-holidays on edge-newyork (Juneteenth)",
  ]);
});
