// The record a running control plane keeps in its directory, so `stop` finds exactly what `start` made.
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ComponentProcess } from "./process.ts";

/** What `start` created in the control-plane directory. */
export interface ControlPlaneState {
  /** Whether `start` created the directory itself (then `stop` removes it whole). */
  readonly createdDir: boolean;
  /** Entries of the directory that `start` created, removed by `stop`. */
  readonly created: string[];
  /** Started processes, in start order. */
  readonly processes: ComponentProcess[];
  server?: string;
  gitUrl?: string;
  artifactUrl?: string;
  eventsUrl?: string;
}

export const stateFileName = "control-plane.json";

export function stateFile(dir: string): string {
  return join(dir, stateFileName);
}

/** Reads the state of the control plane in `dir`, or undefined when none was started there. */
export async function readState(dir: string): Promise<ControlPlaneState | undefined> {
  try {
    return JSON.parse(await readFile(stateFile(dir), "utf8")) as ControlPlaneState;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** Writes the state atomically; called after every started process so a failed start can still be stopped. */
export async function writeState(dir: string, state: ControlPlaneState): Promise<void> {
  const tmp = `${stateFile(dir)}.tmp`;
  await writeFile(tmp, JSON.stringify(state, null, 2) + "\n");
  await rename(tmp, stateFile(dir));
}
