// One contract test suite for the status stores: SQLite and PostgreSQL must answer alike.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { PushedEvent, StatusStore } from "../../src/server/status/store.ts";

const T0 = Date.parse("2026-11-24T08:00:00Z");

/** An event of `cluster` about Kustomization flux-system/apps at `at`, with `fields` changed. */
export function pushedEvent(cluster: string, at: number, fields: Partial<PushedEvent> = {}): PushedEvent {
  return {
    cluster,
    kind: "Kustomization",
    namespace: "flux-system",
    name: "apps",
    eventAt: at,
    receivedAt: at + 500,
    reason: "WindowClosed",
    severity: "info",
    message: "Suspended by window nightly: Frozen",
    state: "closed",
    windows: "nightly",
    nextChange: "2026-11-24T22:00:00Z",
    pendingRevision: null,
    pendingSince: null,
    appliedRevision: null,
    since: "2026-11-24T07:00:00Z",
    suspended: "true",
    gated: "",
    violation: "",
    upcoming: null,
    upcomingAt: null,
    upcomingWindow: null,
    ...fields,
  };
}

/**
 * Registers the contract tests for a store. `open` gives a fresh, empty store each time, and
 * `reopen` the same store again after `close` (what a restart sees).
 */
export function statusStoreContract(name: string, open: () => Promise<{ store: StatusStore; reopen: () => Promise<StatusStore> }>): void {
  test(`${name}: a cluster that never pushed is unknown; one event makes its target and last-heard time`, async () => {
    const { store } = await open();
    try {
      assert.equal(await store.cluster("edge-berlin"), null);
      assert.deepEqual(await store.fleet(), []);
      assert.equal(await store.record(pushedEvent("edge-berlin", T0)), "stored");
      const c = await store.cluster("edge-berlin");
      assert.deepEqual(c, {
        cluster: "edge-berlin",
        lastHeard: new Date(T0 + 500).toISOString(),
        targets: [
          {
            kind: "Kustomization",
            namespace: "flux-system",
            name: "apps",
            state: "closed",
            windows: "nightly",
            nextChange: "2026-11-24T22:00:00Z",
            pendingRevision: null,
            pendingSince: null,
            appliedRevision: null,
            lastTransition: "2026-11-24T07:00:00Z",
            suspended: true,
            gated: null,
            violation: null,
            upcoming: null,
            lastReason: "WindowClosed",
            lastSeverity: "info",
            lastMessage: "Suspended by window nightly: Frozen",
            lastEventAt: new Date(T0).toISOString(),
          },
        ],
      });
    } finally {
      await store.close();
    }
  });

  test(`${name}: the newest event of a target wins, whatever the order they arrive in; a replay changes nothing`, async () => {
    const { store } = await open();
    try {
      const newer = pushedEvent("edge-berlin", T0 + 60_000, { reason: "WindowOpened", state: "open", message: "Resumed", receivedAt: T0 + 61_000 });
      const older = pushedEvent("edge-berlin", T0, { receivedAt: T0 + 120_000 });
      assert.equal(await store.record(newer), "stored");
      assert.equal(await store.record(older), "older", "an event older than the kept one is not taken");
      assert.equal(await store.record(newer), "stored", "a replay of the kept event is the same event");
      const c = await store.cluster("edge-berlin");
      assert.equal(c?.targets.length, 1);
      assert.equal(c?.targets[0]?.state, "open");
      assert.equal(c?.targets[0]?.lastReason, "WindowOpened");
      assert.equal(c?.lastHeard, new Date(T0 + 120_000).toISOString(), "the late event still says the cluster was heard");
    } finally {
      await store.close();
    }
  });

  test(`${name}: an event that does not say a field keeps what an earlier one said; an empty pending revision clears it`, async () => {
    const { store } = await open();
    try {
      await store.record(pushedEvent("edge-berlin", T0, { pendingRevision: "main@sha1:abc", pendingSince: "2026-11-24T07:59:00Z" }));
      await store.record(
        pushedEvent("edge-berlin", T0 + 1000, {
          reason: "SuspendReverted",
          severity: "error",
          state: null,
          windows: null,
          nextChange: null,
          pendingRevision: null,
          pendingSince: null,
        }),
      );
      let t = (await store.cluster("edge-berlin"))?.targets[0];
      assert.equal(t?.lastReason, "SuspendReverted");
      assert.equal(t?.lastSeverity, "error");
      assert.equal(t?.state, "closed");
      assert.equal(t?.nextChange, "2026-11-24T22:00:00Z");
      assert.equal(t?.pendingRevision, "main@sha1:abc");
      assert.equal(t?.pendingSince, "2026-11-24T07:59:00Z");
      await store.record(
        pushedEvent("edge-berlin", T0 + 2000, {
          reason: "ChangesApplied",
          state: "open",
          pendingRevision: "",
          pendingSince: "",
          appliedRevision: "main@sha1:abc",
        }),
      );
      t = (await store.cluster("edge-berlin"))?.targets[0];
      assert.equal(t?.pendingRevision, null);
      assert.equal(t?.pendingSince, null);
      assert.equal(t?.appliedRevision, "main@sha1:abc");
    } finally {
      await store.close();
    }
  });

  test(`${name}: what a target does is kept beside what was decided: a reverted suspend and a violation, cleared by a later event saying none`, async () => {
    const { store } = await open();
    try {
      // A first event saying nothing waits: nothing waits.
      await store.record(pushedEvent("edge-paris", T0, { pendingRevision: "", pendingSince: "" }));
      assert.deepEqual(
        (await store.cluster("edge-paris"))?.targets.map((t) => [t.pendingRevision, t.pendingSince]),
        [[null, null]],
      );
      await store.record(pushedEvent("edge-berlin", T0, { reason: "SuspendReverted", suspended: "false", violation: "main@sha1:def" }));
      let t = (await store.cluster("edge-berlin"))?.targets[0];
      assert.deepEqual([t?.state, t?.suspended, t?.gated, t?.violation, t?.lastTransition], ["closed", false, null, "main@sha1:def", "2026-11-24T07:00:00Z"]);
      // An event that does not say (another controller's fields) keeps them; one that says none clears the violation.
      await store.record(pushedEvent("edge-berlin", T0 + 1000, { since: null, suspended: null, gated: null, violation: null }));
      t = (await store.cluster("edge-berlin"))?.targets[0];
      assert.deepEqual([t?.suspended, t?.violation, t?.lastTransition], [false, "main@sha1:def", "2026-11-24T07:00:00Z"]);
      await store.record(pushedEvent("edge-berlin", T0 + 2000, { suspended: "true", violation: "", gated: "true", since: "2026-11-24T08:00:00Z" }));
      t = (await store.cluster("edge-berlin"))?.targets[0];
      assert.deepEqual([t?.suspended, t?.gated, t?.violation, t?.lastTransition], [true, true, null, "2026-11-24T08:00:00Z"]);
    } finally {
      await store.close();
    }
  });

  test(`${name}: a notice (spec.notice) is kept until a newer one, through later events that are not notices`, async () => {
    const { store } = await open();
    try {
      const notice = "Window weekdays opens Mon 2026-11-30 08:00 CET (in 15m): flux-system/apps: main@sha1:1a2b3c";
      await store.record(
        pushedEvent("edge-berlin", T0, {
          reason: "WindowOpensSoon",
          message: notice,
          upcoming: "Open",
          upcomingAt: "2026-11-30T07:00:00Z",
          upcomingWindow: "weekdays",
        }),
      );
      const opens = { transition: "Open", at: "2026-11-30T07:00:00Z", window: "weekdays", message: notice };
      assert.deepEqual((await store.cluster("edge-berlin"))?.targets[0]?.upcoming, opens);
      // The opening itself (WindowOpened) says nothing of a notice: the last one is kept (the API hides it once it has come).
      await store.record(pushedEvent("edge-berlin", T0 + 1000, { reason: "WindowOpened", message: "Resumed", state: "open" }));
      assert.deepEqual((await store.cluster("edge-berlin"))?.targets[0]?.upcoming, opens);
      assert.deepEqual((await store.fleet())[0]?.targets[0]?.upcoming, opens);
      await store.record(
        pushedEvent("edge-berlin", T0 + 2000, {
          reason: "FreezeStartsSoon",
          message: "Window weekdays: freeze starts ...",
          upcoming: "Frozen",
          upcomingAt: "2026-12-04T11:00:00Z",
          upcomingWindow: "weekdays",
        }),
      );
      assert.deepEqual((await store.cluster("edge-berlin"))?.targets[0]?.upcoming, {
        transition: "Frozen",
        at: "2026-12-04T11:00:00Z",
        window: "weekdays",
        message: "Window weekdays: freeze starts ...",
      });
    } finally {
      await store.close();
    }
  });

  test(`${name}: heard only moves a cluster's last-heard time forward; the fleet lists clusters by name with their targets`, async () => {
    const { store } = await open();
    try {
      await store.heard("edge-tokyo", T0 + 10_000);
      await store.heard("edge-tokyo", T0);
      await store.record(pushedEvent("edge-berlin", T0));
      await store.record(pushedEvent("edge-berlin", T0, { kind: "HelmRelease", name: "podinfo" }));
      const fleet = await store.fleet();
      assert.deepEqual(
        fleet.map((c) => [c.cluster, c.lastHeard, c.targets.map((t) => `${t.kind}/${t.name}`)]),
        [
          ["edge-berlin", new Date(T0 + 500).toISOString(), ["HelmRelease/podinfo", "Kustomization/apps"]],
          ["edge-tokyo", new Date(T0 + 10_000).toISOString(), []],
        ],
      );
    } finally {
      await store.close();
    }
  });

  // More targets than the SQLite store reads in one turn of the event loop (FLEET_ROWS_PER_TURN): the fleet is whole across turns.
  test(`${name}: 600 events recorded at once are all kept, and are there after the store is opened again`, async () => {
    const { store, reopen } = await open();
    const events = Array.from({ length: 600 }, (_, i) => pushedEvent(`cluster-${String(i % 20).padStart(2, "0")}`, T0 + i, { name: `apps-${i}` }));
    assert.deepEqual(new Set(await Promise.all(events.map((e) => store.record(e)))), new Set(["stored"]));
    await store.close();
    const again = await reopen();
    try {
      const fleet = await again.fleet();
      assert.equal(fleet.length, 20);
      assert.equal(
        fleet.reduce((n, c) => n + c.targets.length, 0),
        600,
      );
      assert.deepEqual(
        fleet.map((c) => c.targets.length),
        Array.from({ length: 20 }, () => 30),
        "each cluster with its 30 targets",
      );
    } finally {
      await again.close();
    }
  });
}
