// The test suite's reporter: node's TAP, then, when a test failed, a list of the failures with their files and
// errors. A long run's log is often read from its end, and TAP names a failure only where it happened.
import { tap, type TestEvent } from "node:test/reporters";
import { inspect } from "node:util";

/** What the reporter keeps of a failed test: enough to find it and to see why. */
interface Failure {
  name: string;
  file: string | undefined;
  line: number | undefined;
  error: unknown;
}

/** The lines of an error at most, so that one long failure does not push the others out of a log's tail. */
const ERROR_LINES = 30;

export default async function* reporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const failures: Failure[] = [];
  async function* watched(): AsyncGenerator<TestEvent> {
    for await (const event of source) {
      // A todo test may fail: node counts it as todo, not as a failure.
      if (event.type === "test:fail" && event.data.todo === undefined && !failedForSubtests(event.data.details.error)) {
        failures.push({
          name: event.data.name,
          file: event.data.file,
          line: event.data.line,
          error: event.data.details.error,
        });
      }
      yield event;
    }
  }
  yield* tap(watched());
  if (failures.length > 0) yield failureList(failures);
}

/** A stack frame inside node itself (its test runner's), which says nothing about the failure. */
const NODE_FRAME = /^\s+at (?:.* \()?node:/;

/** A test that failed only because tests inside it failed: those are listed themselves. */
function failedForSubtests(error: unknown): boolean {
  return (error as TestFailure | undefined)?.failureType === "subtestsFailed";
}

/** The failures as TAP comments, each with its place, how it failed when it was not its own code, and the first lines of its error. */
function failureList(failures: readonly Failure[]): string {
  const lines = [`# failing tests: ${failures.length}`];
  for (const failure of failures) {
    const place = failure.file === undefined ? "" : ` (${failure.file}${failure.line === undefined ? "" : `:${failure.line}`})`;
    const { kind, text } = described(failure.error);
    lines.push(`# not ok - ${failure.name}${place}${kind === "testCodeFailure" ? "" : ` [${kind}]`}`);
    const errorLines = text.split("\n").filter((line) => !NODE_FRAME.test(line));
    for (const line of errorLines.slice(0, ERROR_LINES)) lines.push(`#   ${line}`);
    if (errorLines.length > ERROR_LINES) lines.push(`#   … ${errorLines.length - ERROR_LINES} more lines`);
  }
  return `${lines.join("\n")}\n`;
}

/** node's error of a failed test (ERR_TEST_FAILURE), as far as this reporter reads it. */
interface TestFailure {
  failureType?: string;
  cause?: unknown;
  exitCode?: number | null;
  signal?: string | null;
}

/**
 * How a test failed and why. node wraps what failed in an error of its own: for the test's or a hook's code, the
 * thrown value is its cause; for what node found itself (a timeout, a cancelled test, a file whose process exited
 * or was killed), the cause is node's message, and the exit code or signal is on the wrapper.
 */
function described(error: unknown): { kind: string; text: string } {
  const failure = (typeof error === "object" && error !== null ? error : {}) as TestFailure;
  const kind = failure.failureType ?? "unknown";
  const cause = failure.cause === undefined ? error : failure.cause;
  if (typeof cause !== "string") return { kind, text: cause instanceof Error ? (cause.stack ?? String(cause)) : inspect(cause, { depth: 4 }) };
  const exit = [
    typeof failure.exitCode === "number" ? `exit code ${failure.exitCode}` : null,
    typeof failure.signal === "string" ? `signal ${failure.signal}` : null,
  ].filter((part) => part !== null);
  return { kind, text: `${cause}${exit.length === 0 ? "" : ` (${exit.join(", ")})`}` };
}
