// One control plane per test file, shared by its tests: registers node:test before/after hooks that start and stop it.
import { after, before } from "node:test";
import { startControlPlane } from "../../src/devenv/control-plane.ts";
import type { ControlPlane, ControlPlaneOptions } from "../../src/devenv/control-plane.ts";
import { HarnessError } from "../../src/devenv/errors.ts";

/**
 * Starts a control plane before the first test of the calling file and stops it after the last one.
 * Returns an accessor for use inside tests.
 *
 * @example
 * const plane = sharedControlPlane({ flux: true });
 * test("...", async () => { const cp = plane(); ... });
 */
export function sharedControlPlane(options: ControlPlaneOptions = {}): () => ControlPlane {
  let cp: ControlPlane | undefined;
  before(async () => {
    cp = await startControlPlane(options);
  });
  after(async () => {
    await cp?.stop();
  });
  return () => {
    if (cp === undefined) throw new HarnessError("NotStarted", "the shared control plane did not start; see the before hook's error");
    return cp;
  };
}
