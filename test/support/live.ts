// The two LiveSource implementations held to one contract: an in-memory one for unit tests, and the rules KubeLive (real clusters) must also keep.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import type { KubernetesObject } from "@kubernetes/client-node";
import { ConflictError } from "../../src/server/model/errors.ts";
import { CANCELLED_AT, CANCELLED_BY } from "../../src/api/index.ts";
import type { CancelResult, LiveSource } from "../../src/server/status/live.ts";

/**
 * Live status kept in memory, per cluster: what a unit test puts in `windows`, and the overrides
 * created through it (`created` keeps them as they were given, for assertions).
 */
export class MemoryLive implements LiveSource {
  private readonly contexts: ReadonlyMap<string, string>;
  /** Windows per cluster, as the cluster would list them. */
  readonly windows = new Map<string, KubernetesObject[]>();
  private readonly stored = new Map<string, KubernetesObject[]>();
  /** Overrides passed to `create`, in order, as given. */
  readonly created: KubernetesObject[] = [];

  constructor(contexts: ReadonlyMap<string, string>) {
    this.contexts = contexts;
  }

  contextOf(cluster: string): string | null {
    return this.contexts.get(cluster) ?? null;
  }

  /** The error for a cluster without a context, as KubeLive gives it; null when connected. */
  private unconnected(cluster: string): ConflictError | null {
    return this.contexts.has(cluster)
      ? null
      : new ConflictError(`no live connection to cluster ${cluster}: start the service with --cluster-context ${cluster}=CONTEXT`);
  }

  read(cluster: string): Promise<{ windows: KubernetesObject[]; overrides: KubernetesObject[] }> {
    const refused = this.unconnected(cluster);
    if (refused !== null) return Promise.reject(refused);
    return Promise.resolve({ windows: [...(this.windows.get(cluster) ?? [])], overrides: [...(this.stored.get(cluster) ?? [])] });
  }

  create(cluster: string, override: KubernetesObject): Promise<KubernetesObject> {
    const refused = this.unconnected(cluster);
    if (refused !== null) return Promise.reject(refused);
    const list = this.stored.get(cluster) ?? [];
    const name = override.metadata?.name ?? "";
    if (list.some((o) => o.metadata?.name === name))
      return Promise.reject(new ConflictError(`cluster ${cluster} already has that override: ${name} already exists`));
    this.created.push(override);
    const stored = { ...override, metadata: { ...override.metadata, namespace: "flux-system", uid: randomUUID() } };
    this.stored.set(cluster, [...list, stored]);
    return Promise.resolve(stored);
  }

  cancel(cluster: string, name: string, by: string, at: string): Promise<CancelResult> {
    const refused = this.unconnected(cluster);
    if (refused !== null) return Promise.reject(refused);
    const list = this.stored.get(cluster) ?? [];
    const found = list.find((o) => o.metadata?.name === name);
    if (found === undefined) return Promise.resolve("absent");
    if (found.metadata?.annotations?.[CANCELLED_AT] !== undefined) return Promise.resolve("already");
    const cancelled = { ...found, metadata: { ...found.metadata, annotations: { ...found.metadata?.annotations, [CANCELLED_AT]: at, [CANCELLED_BY]: by } } };
    this.stored.set(
      cluster,
      list.map((o) => (o === found ? cancelled : o)),
    );
    return Promise.resolve("cancelled");
  }
}

/** One implementation under the contract: a cluster it is connected to, and a way to put a window in that cluster. */
export interface LiveSourceUnderTest {
  live: LiveSource;
  /** A cluster with a context. */
  cluster: string;
  context: string;
  /** Puts a ReconciliationWindow into the cluster's flux-system namespace, as Flux would apply it. */
  addWindow(window: KubernetesObject): Promise<void>;
}

/** A WindowOverride named `name` for window `window`, as the Config Service creates it. */
function override(name: string, window: string): KubernetesObject {
  return {
    apiVersion: "fluxgate.io/v1alpha1",
    kind: "WindowOverride",
    metadata: { name, namespace: "flux-system" },
    spec: {
      windowRef: { name: window },
      action: "Freeze",
      until: new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
      reason: "contract",
    },
  } as KubernetesObject;
}

/**
 * Registers the LiveSource contract as tests named after `name`; `make` gives a fresh (or
 * shared, with unique names) implementation per test.
 */
export function liveSourceContract(name: string, make: () => Promise<LiveSourceUnderTest>): void {
  const unique = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

  test(`${name}: contextOf names the context of a connected cluster and null for any other`, async () => {
    const u = await make();
    assert.equal(u.live.contextOf(u.cluster), u.context);
    assert.equal(u.live.contextOf("not-a-cluster"), null);
  });

  test(`${name}: a cluster without a context is refused with 409, for reads, creates and cancels`, async () => {
    const u = await make();
    for (const call of [
      () => u.live.read("not-a-cluster"),
      () => u.live.create("not-a-cluster", override(unique("o"), "w")),
      () => u.live.cancel("not-a-cluster", "o", "me", "2026-11-23T10:00:00Z"),
    ]) {
      await assert.rejects(call(), (e: unknown) => e instanceof ConflictError && /not-a-cluster/.test(e.message));
    }
  });

  test(`${name}: read lists the windows of the cluster's flux-system namespace`, async () => {
    const u = await make();
    const window = unique("w");
    await u.addWindow({
      apiVersion: "fluxgate.io/v1alpha1",
      kind: "ReconciliationWindow",
      metadata: { name: window, namespace: "flux-system" },
      spec: { schedules: [{ start: "0 8 * * MON", duration: "2h" }], targets: [{ kind: "Kustomization", name: "apps-rw" }] },
    } as KubernetesObject);
    const { windows } = await u.live.read(u.cluster);
    assert.ok(
      windows.some((w) => w.metadata?.name === window),
      `window ${window} is listed`,
    );
  });

  test(`${name}: create stores the override (with a uid), read lists it, and the same name again is a 409`, async () => {
    const u = await make();
    const name = unique("o");
    const created = await u.live.create(u.cluster, override(name, "apps-rw"));
    assert.equal(created.metadata?.name, name);
    assert.equal(created.metadata?.namespace, "flux-system");
    assert.equal(typeof created.metadata?.uid, "string");
    assert.notEqual(created.metadata?.uid, "");
    const { overrides } = await u.live.read(u.cluster);
    assert.deepEqual(
      overrides.filter((o) => o.metadata?.name === name).map((o) => o.metadata?.uid),
      [created.metadata?.uid],
    );
    await assert.rejects(u.live.create(u.cluster, override(name, "apps-rw")), (e: unknown) => e instanceof ConflictError);
  });

  test(`${name}: cancel annotates the override as ended once; a second cancel leaves it as it was; an override the cluster lacks is "absent"`, async () => {
    const u = await make();
    const name = unique("o");
    await u.live.create(u.cluster, override(name, "apps-rw"));
    assert.equal(await u.live.cancel(u.cluster, name, "bree oncall", "2026-11-23T10:00:00Z"), "cancelled");
    assert.equal(await u.live.cancel(u.cluster, name, "someone else", "2026-11-23T11:00:00Z"), "already");
    const { overrides } = await u.live.read(u.cluster);
    const annotations = overrides.find((o) => o.metadata?.name === name)?.metadata?.annotations ?? {};
    assert.equal(annotations[CANCELLED_AT], "2026-11-23T10:00:00Z");
    assert.equal(annotations[CANCELLED_BY], "bree oncall");
    assert.equal(await u.live.cancel(u.cluster, unique("gone"), "bree oncall", "2026-11-23T10:00:00Z"), "absent");
  });
}
