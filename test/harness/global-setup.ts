// Global setup of `npm test` (node --test --test-global-setup): builds missing tools once, before any test file runs.
import { requireGit } from "../../src/devenv/prereqs.ts";
import { ensurePythonHolidays } from "../../src/devenv/python-holidays.ts";
import { ensureFluxCrds, ensureImageAutomationCrd, ensureTools } from "../../src/devenv/tools.ts";
import { ensureZoneData } from "../../src/devenv/zone-data.ts";

/**
 * Builds every tool the integration and end-to-end tests use (cached; a no-op when warm). A missing
 * Go or git fails the whole run here with a message saying how to get it, instead of every test file.
 * Python's holidays (the oracle of one test) is installed here too, as `npm run tools` does; when pip
 * cannot install it, that one test fails saying how to get it, and the rest run. So is the zone data of this Node.js's release, which the cron
 * and RFC 5545 oracles read instead of the machine's (src/devenv/zone-data.ts): without it, those tests fail saying how to get it.
 */
export async function globalSetup(): Promise<void> {
  requireGit();
  await ensureTools();
  await ensureFluxCrds();
  await ensureImageAutomationCrd();
  await ensurePythonHolidays().catch((e: unknown) => {
    process.stderr.write(`# Python's holidays is not installed (${e instanceof Error ? e.message : String(e)}): the holiday oracle test will fail\n`);
  });
  await ensureZoneData().catch((e: unknown) => {
    process.stderr.write(
      `# the zone data for the oracles is not installed (${e instanceof Error ? e.message : String(e)}): the cron and RFC 5545 oracle tests will fail\n`,
    );
  });
}
