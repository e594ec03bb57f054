// The fleet page's view in the address: read back as written, defaults left out, bad values ignored.

import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultView, hashOf, rangeOf, shifted, viewOf } from "../../../src/server/dashboard/client/view.ts";

const NOW = Date.parse("2026-11-23T10:00:00Z");

test("a view goes into the address and comes back the same; the default view is #/", () => {
  assert.equal(hashOf(defaultView(NOW), NOW), "#/");
  const view = {
    ...defaultView(NOW),
    search: "us-5",
    selector: "ring=prod,region in (eu,us)",
    group: "region",
    from: "2026-12-14",
    zoom: "month" as const,
    lanes: "all" as const,
    cluster: "edge-us-53",
    band: "target:Kustomization/flux-system/apps-rw@2026-11-27T05:00:00Z",
  };
  const hash = hashOf(view, NOW);
  assert.equal(
    hash,
    "#/?search=us-5&selector=ring%3Dprod%2Cregion+in+%28eu%2Cus%29&group=region&from=2026-12-14&zoom=month&lanes=all&cluster=edge-us-53&band=target%3AKustomization%2Fflux-system%2Fapps-rw%402026-11-27T05%3A00%3A00Z",
  );
  assert.deepEqual(viewOf(hash, NOW), view);
});

test("what cannot be read takes its default: an unknown zoom or lanes, a date that is not one", () => {
  assert.deepEqual(viewOf("#/?zoom=year&lanes=some&from=2026-13-45", NOW), defaultView(NOW));
  assert.deepEqual(viewOf("#/?from=yesterday", NOW), defaultView(NOW));
});

test("the range is whole UTC days from `from`; moving shifts by one span and forgets the chosen band", () => {
  const view = { ...defaultView(NOW), zoom: "quarter" as const, band: "window:apps-rw@2026-11-26T23:00:00Z" };
  assert.deepEqual(rangeOf(view), { from: Date.parse("2026-11-23T00:00:00Z"), to: Date.parse("2027-02-24T00:00:00Z") });
  const later = shifted(view, 1);
  assert.equal(later.from, "2027-02-24");
  assert.equal(later.band, "");
  assert.equal(shifted({ ...defaultView(NOW), zoom: "day" }, -1).from, "2026-11-22");
});
