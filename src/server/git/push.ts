// What the service's Git writes say: commit messages, backup ref stamps, and how to read the answer of a push.

/** `20261123T100000Z` for a ref name. */
export function refStamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replace(/[-:]/g, "");
}

/**
 * The message of a commit: the subject, then the reason's first line, so `git log --oneline` shows
 * why; a reason of several lines is also the body.
 *
 * @example commitMessage("edge-berlin: change window apps-rw", "The plant starts at 07:00") // "edge-berlin: change window apps-rw: The plant starts at
 * 07:00\n"
 */
export function commitMessage(subject: string, reason: string): string {
  const lines = reason.trim().split(/\r?\n/);
  const first = (lines[0] as string).trim();
  return lines.length === 1 ? `${subject}: ${first}\n` : `${subject}: ${first}\n\n${reason.trim()}\n`;
}

const REJECTED = /\[rejected\].*\((non-fast-forward|fetch first|stale info)\)/;
/**
 * Another push moved the branch while origin checked this one (two replicas pushing at once): the
 * ref was not where this push found it. The remote moved ahead, as with a rejected push.
 */
const LOST_RACE = /cannot lock ref '[^']+': is at [0-9a-f]+ but expected [0-9a-f]+/;

/** A failed `git push --porcelain`, read: behind origin (plan again on its head), or why it failed. */
export type PushAnswer = { behind: true } | { behind: false; why: string; reachedOrigin: boolean };

/**
 * Reads a failed push's output: behind when origin moved ahead (rejected, or a race lost to
 * another pusher); else why, with the remote's own lines (a hook's) or git's `fatal:`/`error:`
 * lines, and whether the push reached origin at all (its "To <origin>" line).
 */
export function pushAnswer(stdout: string, stderr: string): PushAnswer {
  if (REJECTED.test(stdout) || (/\[remote rejected\]/.test(stdout) && LOST_RACE.test(stderr))) return { behind: true };
  const remoteLines = stderr.split("\n").filter((line) => line.startsWith("remote:") && line.trim() !== "remote:");
  const rejected = stdout.split("\n").filter((line) => line.startsWith("!"));
  // Without the remote's own lines, git's: its "fatal:" and "error:" lines say why (not the advice after them).
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const errors = lines.filter((l) => /^(fatal|error):/.test(l));
  const other = remoteLines.length === 0 ? (errors.length > 0 ? errors : lines.slice(-3)) : [];
  const why =
    [...remoteLines, ...rejected, ...other]
      .map((l) => l.trim())
      .filter((l) => l !== "")
      .join("\n") || "git push failed";
  return { behind: false, why, reachedOrigin: /^To /m.test(stdout) };
}
