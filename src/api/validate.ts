// Validation of user input against the API schemas, with every problem named by its field path.

import type { z } from "zod";
import { InputError, inContext, problemsText, type FieldProblem } from "../errors.ts";
import { compileWindow, timingProblems, type CompiledWindow, type CompileOptions } from "../schedule/index.ts";
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
  throw new ValidationError(schemaProblems(result.error.issues, prefix));
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
  if (issue.code === "invalid_type")
    return issue.input === undefined ? "is required" : `must be ${TYPE_WORDS[issue.expected] ?? issue.expected}, not ${typeWord(issue.input)}`;
  return issue.message;
}

/** Types as the users' YAML has them. */
const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "a map of fields",
  null: "null",
};

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
 * after `from`), and reports every problem of both at once. The answer never depends on `now`: a
 * window valid today is valid next year (`0 0 29 2 *` opens in leap years); `now` is kept for
 * callers and for checks that may need it. `options.cluster`: the cluster it is evaluated for, whose
 * labels a holiday freeze may take its country from (without it, such a freeze is refused).
 */
export function validateWindow(input: unknown, _now: number, options: CompileOptions = {}): { window: ReconciliationWindow; compiled: CompiledWindow } {
  const parsed = ReconciliationWindowSchema.safeParse(input, { reportInput: true });
  if (parsed.success) return { window: parsed.data, compiled: compileChecked(parsed.data.metadata.name, parsed.data.spec, "spec", options) };
  const metadata = isRecord(input) ? input.metadata : undefined;
  const name = isRecord(metadata) && typeof metadata.name === "string" ? metadata.name : "window";
  throw new ValidationError(
    withEngineProblems(input, schemaProblems(parsed.error.issues, ""), isRecord(input) ? input.spec : undefined, name, "spec", options),
  );
}

/** Validates just a window's timing (as `schedule preview --start ...` builds it), reporting every problem at once. */
export function validateTiming(input: unknown, name: string, _now: number, prefix = "spec"): { timing: WindowTimingSpec; compiled: CompiledWindow } {
  const parsed = WindowTimingSchema.safeParse(input, { reportInput: true });
  if (parsed.success) return { timing: parsed.data, compiled: compileChecked(name, parsed.data, prefix) };
  // The paths start with `prefix`, the name of the timing itself.
  throw new ValidationError(withEngineProblems({ [prefix]: input }, schemaProblems(parsed.error.issues, prefix), input, name, prefix));
}

/** Compiles a validated timing; the time engine's finer checks (a cron that never fires, ...) are reported as the schema's are. */
function compileChecked(name: string, timing: WindowTimingSpec, prefix: string, options: CompileOptions = {}): CompiledWindow {
  // The engine's problems name their fields: problems of the spec, reported as the schema's are.
  return inContext({ as: ValidationError }, () => compileWindow(name, timing, prefix, options));
}

function schemaProblems(issues: readonly z.core.$ZodIssue[], prefix: string): FieldProblem[] {
  return issues.map((issue) => ({ path: formatPath(issue.path, prefix), message: issueMessage(issue) }));
}

/**
 * The schema's problems, with the engine's problems of every part of the timing the schema found
 * nothing wrong with, each placed in the order of the manifest (so a window with two bad freezes
 * names both, the first first).
 */
function withEngineProblems(
  root: unknown,
  problems: readonly FieldProblem[],
  timing: unknown,
  name: string,
  prefix: string,
  options: CompileOptions = {},
): FieldProblem[] {
  if (!isRecord(timing)) return [...problems];
  const engine = timingProblems(
    name,
    timing,
    prefix,
    problems.map((p) => p.path),
    options,
  ).flatMap((e) => e.problems);
  const out = [...problems];
  for (const p of engine) {
    const at = position(root, p.path);
    let i = out.length;
    while (i > 0 && comparePositions(position(root, (out[i - 1] as FieldProblem).path), at) > 0) i--;
    out.splice(i, 0, p);
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Where a field path is in the manifest as written: the index of each key among its object's keys, or of each list item. */
function position(input: unknown, path: string): number[] {
  const out: number[] = [];
  let value = input;
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (m[2] !== undefined) {
      const i = Number(m[2]);
      out.push(i);
      value = Array.isArray(value) ? value[i] : undefined;
    } else {
      const keys = isRecord(value) ? Object.keys(value) : [];
      const i = keys.indexOf(m[1] as string);
      out.push(i < 0 ? Number.MAX_SAFE_INTEGER : i);
      value = isRecord(value) ? value[m[1] as string] : undefined;
    }
  }
  return out;
}

function comparePositions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return a.length - b.length;
}
