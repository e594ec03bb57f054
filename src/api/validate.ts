// Validation of user input against the API schemas, with every problem named by its field path.

import type { z } from "zod";
import { InputError, inContext, problemsText, type FieldProblem } from "../errors.ts";
import { compileWindow, type CompiledWindow } from "../schedule/index.ts";
import { INVALID_SPEC } from "./conditions.ts";
import { ReconciliationWindowSchema, WindowTimingSchema, type ReconciliationWindow, type WindowTimingSpec } from "./window.ts";

export type { FieldProblem } from "../errors.ts";

/**
 * Input that does not satisfy the schema. The message lists every problem, one per line. Also made
 * by `inContext({ as: ValidationError })` from a message and its problems.
 */
export class ValidationError extends InputError {
  constructor(problems: readonly FieldProblem[] | string, options?: { problems?: readonly FieldProblem[]; cause?: unknown }) {
    const list = typeof problems === "string" ? (options?.problems ?? []) : problems;
    super(typeof problems === "string" ? problems : problemsText(problems), { reason: INVALID_SPEC, problems: list, cause: options?.cause });
  }
}

/** Formats a zod path as users write it: `spec.schedules[1].duration`. */
export function formatPath(path: ReadonlyArray<PropertyKey>, prefix = ""): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** Parses `input` with `schema`, or throws a ValidationError naming each bad field under `prefix`. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, prefix = ""): z.infer<S> {
  // reportInput: without it zod leaves `input` out of every issue, and a value of the wrong type would read as missing.
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  throw new ValidationError(
    result.error.issues.map((issue) => ({ path: formatPath(issue.path, prefix), message: issueMessage(issue) })),
  );
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
  if (issue.code === "invalid_type") return issue.input === undefined ? "is required" : `must be ${TYPE_WORDS[issue.expected] ?? issue.expected}, not ${typeWord(issue.input)}`;
  return issue.message;
}

/** Types as the users' YAML has them. */
const TYPE_WORDS: Readonly<Record<string, string>> = { string: "a string", number: "a number", int: "a whole number", boolean: "true or false", array: "a list", object: "a map of fields", null: "null" };

function typeWord(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a map";
  if (typeof value === "string") return "a string";
  if (typeof value === "number") return Number.isInteger(value) ? "a number" : "a decimal number";
  if (typeof value === "boolean") return "true or false";
  return typeof value;
}

/**
 * Validates a ReconciliationWindow manifest completely: schema, then what needs the engine (`to`
 * after `from`). The answer never depends on `now`: a window valid today is valid next year
 * (`0 0 29 2 *` opens in leap years); `now` is kept for callers and for checks that may need it.
 */
export function validateWindow(input: unknown, _now: number): { window: ReconciliationWindow; compiled: CompiledWindow } {
  const window = parseWith(ReconciliationWindowSchema, input);
  const compiled = compileChecked(window.metadata.name, window.spec, "spec");
  return { window, compiled };
}

/** Validates just a window's timing (as `schedule preview --start ...` builds it). */
export function validateTiming(input: unknown, name: string, _now: number, prefix = "spec"): { timing: WindowTimingSpec; compiled: CompiledWindow } {
  const timing = parseWith(WindowTimingSchema, input, prefix);
  return { timing, compiled: compileChecked(name, timing, prefix) };
}

/** Compiles a validated timing; the time engine's finer checks (a cron that never fires, ...) are reported as the schema's are. */
function compileChecked(name: string, timing: WindowTimingSpec, prefix: string): CompiledWindow {
  // The engine's problems name their fields: problems of the spec, reported as the schema's are.
  return inContext({ as: ValidationError }, () => compileWindow(name, timing, prefix));
}
