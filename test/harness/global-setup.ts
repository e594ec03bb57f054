// Global setup of `npm test` (node --test --test-global-setup): builds missing tools once, before any test file runs.
import { requireGit } from "../../src/devenv/prereqs.ts";
import { ensureFluxCrds, ensureImageAutomationCrd, ensureTools } from "../../src/devenv/tools.ts";

/**
 * Builds every tool the integration and end-to-end tests use (cached; a no-op when warm). A missing
 * Go or git fails the whole run here with a message saying how to get it, instead of every test file.
 */
export async function globalSetup(): Promise<void> {
  requireGit();
  await ensureTools();
  await ensureFluxCrds();
  await ensureImageAutomationCrd();
}
