// What a V8 heap snapshot of the controller holds: live bytes by kind (strings, compiled code, objects, ...) and what the informers' caches reach.

import { readFile, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { sleep } from "./process.ts";

export interface HeapLine {
  bench: "controller.heap";
  targets: number;
  /** Every live object in the snapshot (MiB of their own sizes). */
  liveMiB: number;
  /** Of it: strings (source code of the scripts among them), compiled code, JS objects, arrays, object shapes and V8's internals, closures, the rest. */
  stringsMiB: number;
  codeMiB: number;
  objectsMiB: number;
  arraysMiB: number;
  shapesAndInternalsMiB: number;
  closuresMiB: number;
  otherMiB: number;
  /** What the informers' caches reach: the cached objects themselves (their metadata, spec, status, strings). */
  informerCachesMiB: number;
  /** The same per cached object, in KiB, and how many objects they hold. */
  perCachedObjectKiB: number;
  cachedObjects: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const MiB = (bytes: number): number => Math.round(bytes / 104_857.6) / 10;

/** Edges that do not make an object part of a cached one: its shape, its prototype, weak references. */
const SKIPPED_EDGE_NAMES = new Set(["map", "__proto__", "constructor"]);

/** Sums a heap snapshot by kind, and what the `objects` map of each informer (fluxgate's Informer, or client-node's ListWatch) reaches. */
export function summarizeHeap(text: string, targets: number): HeapLine {
  const s = JSON.parse(text) as Snapshot;
  const nf = s.snapshot.meta.node_fields;
  const ef = s.snapshot.meta.edge_fields;
  const nodeTypes = s.snapshot.meta.node_types[0];
  const edgeTypes = s.snapshot.meta.edge_types[0];
  const N = nf.length;
  const E = ef.length;
  const [tType, tName, tSize, tEdges] = ["type", "name", "self_size", "edge_count"].map((f) => nf.indexOf(f)) as [number, number, number, number];
  const [eType, eName, eTo] = ["type", "name_or_index", "to_node"].map((f) => ef.indexOf(f)) as [number, number, number];
  const count = s.nodes.length / N;
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0; i < count; i++) firstEdge[i + 1] = (firstEdge[i] as number) + (s.nodes[i * N + tEdges] as number) * E;

  const sums = { strings: 0, code: 0, objects: 0, arrays: 0, shapes: 0, closures: 0, other: 0 };
  let live = 0;
  for (let i = 0; i < count; i++) {
    const size = s.nodes[i * N + tSize] as number;
    live += size;
    const type = nodeTypes[s.nodes[i * N + tType] as number];
    if (type === "string" || type === "concatenated string" || type === "sliced string") sums.strings += size;
    else if (type === "code") sums.code += size;
    else if (type === "object") sums.objects += size;
    else if (type === "array") sums.arrays += size;
    else if (type === "hidden" || type === "object shape") sums.shapes += size;
    else if (type === "closure") sums.closures += size;
    else sums.other += size;
  }

  // The caches: from each informer's `objects` map, every node reached through properties, elements and internal edges.
  const starts: number[] = [];
  for (let i = 0; i < count; i++) {
    const name = s.strings[s.nodes[i * N + tName] as number];
    if (nodeTypes[s.nodes[i * N + tType] as number] !== "object" || (name !== "Informer" && name !== "ListWatch")) continue;
    for (let e = firstEdge[i] as number; e < (firstEdge[i + 1] as number); e += E) {
      if (edgeTypes[s.edges[e + eType] as number] === "property" && s.strings[s.edges[e + eName] as number] === "objects")
        starts.push((s.edges[e + eTo] as number) / N);
    }
  }
  const seen = new Uint8Array(count);
  const stack = [...starts];
  for (const n of starts) seen[n] = 1;
  let cached = 0;
  let cachedObjects = 0;
  while (stack.length > 0) {
    const n = stack.pop() as number;
    cached += s.nodes[n * N + tSize] as number;
    for (let e = firstEdge[n] as number; e < (firstEdge[n + 1] as number); e += E) {
      const edgeType = edgeTypes[s.edges[e + eType] as number];
      if (edgeType === "weak" || edgeType === "shortcut") continue;
      if (edgeType === "property" || edgeType === "internal") {
        if (SKIPPED_EDGE_NAMES.has(s.strings[s.edges[e + eName] as number] ?? "")) continue;
      }
      const to = (s.edges[e + eTo] as number) / N;
      const toType = nodeTypes[s.nodes[to * N + tType] as number];
      if (seen[to] === 1 || toType === "code" || toType === "closure" || toType === "object shape" || toType === "native") continue;
      seen[to] = 1;
      // The cached objects: those with a `metadata` property, one per Kubernetes object.
      if (toType === "object") {
        for (let f = firstEdge[to] as number; f < (firstEdge[to + 1] as number); f += E) {
          if (s.strings[s.edges[f + eName] as number] === "metadata" && edgeTypes[s.edges[f + eType] as number] === "property") {
            cachedObjects++;
            break;
          }
        }
      }
      stack.push(to);
    }
  }
  return {
    bench: "controller.heap",
    targets,
    liveMiB: MiB(live),
    stringsMiB: MiB(sums.strings),
    codeMiB: MiB(sums.code),
    objectsMiB: MiB(sums.objects),
    arraysMiB: MiB(sums.arrays),
    shapesAndInternalsMiB: MiB(sums.shapes),
    closuresMiB: MiB(sums.closures),
    otherMiB: MiB(sums.other),
    informerCachesMiB: MiB(cached),
    perCachedObjectKiB: cachedObjects === 0 ? 0 : Math.round((cached / cachedObjects / 1024) * 10) / 10,
    cachedObjects,
  };
}

/** Waits for the heap snapshot a process writes into `dir` (on --heapsnapshot-signal) to be complete, and returns its text. */
export async function writtenSnapshot(dir: string, timeoutMs = 120_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let lastSize = -1;
  while (Date.now() < deadline) {
    await sleep(1_000);
    const file = (await readdir(dir)).find((f) => f.endsWith(".heapsnapshot"));
    if (file === undefined) continue;
    const size = (await stat(join(dir, file))).size;
    if (size > 0 && size === lastSize) {
      const text = await readFile(join(dir, file), "utf8");
      // A complete snapshot is one JSON document.
      if (text.trimEnd().endsWith("}")) return text;
    }
    lastSize = size;
  }
  throw new Error(`no complete heap snapshot in ${dir} within ${timeoutMs / 1000}s`);
}
