// The targets a cluster's Kustomizations render with the real kustomize, as `fluxgate check` renders them:
// a Flux object that a kustomize base declares gets its per-target lane too, not only one written in the cluster's directory.

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fluxKindOf } from "../../api/kinds.ts";
import { RepoFiles } from "../../gitops/files.ts";
import type { KustomizeRunner } from "../../gitops/kustomize.ts";
import { Renderer } from "../../gitops/render.ts";
import { fluxObjects } from "../../gitops/windows.ts";
import { writeCommit } from "../git/commit-files.ts";
import type { Git } from "../git/git.ts";
import type { TargetRecord } from "./model.ts";

/** Per cluster name, the targets the cluster's Kustomizations apply at `commit`. */
export type TargetRenderer = (git: Git, commit: string, clusters: ReadonlyArray<{ name: string; path: string }>) => Promise<Map<string, TargetRecord[]>>;

/**
 * Renders each cluster from its bootstrap path (its root Kustomization, then every Flux
 * Kustomization found in what that applies) in a copy of the commit, and lists the objects a
 * window may target. A Kustomization that does not build adds nothing (`fluxgate check` says why).
 *
 * @example const targets = await kustomizeTargets(runner)(git, commit, [{ name: "edge", path: "clusters/edge" }]);
 */
export function kustomizeTargets(runner: KustomizeRunner): TargetRenderer {
  return async (git, commit, clusters) => {
    const dir = await mkdtemp(join(tmpdir(), "fluxgate-targets-"));
    const renderer = new Renderer(new RepoFiles(dir), runner);
    try {
      await writeCommit(git, commit, dir);
      const out = new Map<string, TargetRecord[]>();
      for (const c of clusters) {
        const rendered = await renderer.renderCluster(c.name, c.path, [Renderer.bootstrapRoot(c.path)]);
        const targets = fluxObjects(rendered)
          .filter((o) => fluxKindOf(o.ref.kind)?.group === o.ref.group)
          .map((o): TargetRecord => ({
            kind: o.ref.kind,
            namespace: o.ref.namespace,
            name: o.ref.name,
            labels: o.labels,
            path: o.object?.file ?? o.by?.path ?? c.path,
          }));
        out.set(c.name, targets);
      }
      return out;
    } finally {
      await renderer.close();
      await rm(dir, { recursive: true, force: true });
    }
  };
}
