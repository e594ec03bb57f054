// `fluxgate schedule preview`: when a window will be open, from a manifest or from flags.

import { inContext } from "../errors.ts";
import { readFile } from "node:fs/promises";
import { validateTiming, validateWindow } from "../api/validate.ts";
import { API_VERSION } from "../api/window.ts";
import { Views } from "../policy/views.ts";
import { parseInstant as readInstant } from "../policy/instant.ts";
import { OVERRIDES } from "../kube/resources.ts";
import { Evaluator, formatLength, recurrenceWords, type CompiledWindow, type OverrideInput, type Segment, type Stretches } from "../schedule/index.ts";
import { UsageError } from "./errors.ts";
import type { ClusterFlags } from "./kube.ts";
import { ascii, ByteChunks, writeChunks } from "./format/bytes.ts";
import { writeLines } from "./format/lines.ts";
import { previewHeapFlags } from "./heap.ts";
import { measuredTableLines } from "./format/table.ts";
import { localTime, localTimeWidth, rfc3339, rfc3339Exact, utcTime, utcTimeWidth } from "../schedule/format.ts";
import { timeline, TIMELINE_LEGEND } from "./format/timeline.ts";
import { kube, outputOf, str, type CommandIO, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate schedule preview` (its spec: specs.ts). */
export function runSchedulePreview(v: Values, [window]: string[], io: CommandIO): Promise<CommandResult> {
  const output = outputOf(v.output, ["table", "json", "yaml"] as const, "table");
  // A long JSON or YAML preview is a stream of objects that live a moment: V8's young generation is kept small for it
  // (heap.ts), where the output is this process's own (not where another program runs fluxgate in its process).
  if (output !== "table" && io.stdout === process.stdout) previewHeapFlags(process.execArgv, process.env["NODE_OPTIONS"]);
  return schedulePreview({
    ...kube(v),
    window,
    file: str(v.file),
    name: str(v.name),
    start: str(v.start),
    end: str(v.end),
    duration: str(v.duration),
    recurrence: str(v.recurrence),
    at: str(v.at),
    endAt: str(v["end-at"]),
    dtstart: str(v.dtstart),
    exdates: Array.isArray(v.exdate) ? v.exdate.map(String) : undefined,
    holidays: Array.isArray(v.holidays) ? v.holidays.map(String) : undefined,
    tz: str(v.tz),
    from: str(v.from),
    to: str(v.to),
    output,
    now: Date.now(),
    out: io.stdout,
  });
}

export interface SchedulePreviewOptions extends ClusterFlags {
  /** A ReconciliationWindow in the cluster (with --kubeconfig, --context, -n): its spec and its overrides. */
  window?: string | undefined;
  /** A ReconciliationWindow manifest (YAML or JSON). */
  file?: string | undefined;
  /** Which window of the file, when it holds several. */
  name?: string | undefined;
  start?: string | undefined;
  end?: string | undefined;
  duration?: string | undefined;
  /** One schedule by RFC 5545 rule, instead of --start: with at, and endAt or duration. */
  recurrence?: string | undefined;
  at?: string | undefined;
  endAt?: string | undefined;
  dtstart?: string | undefined;
  exdates?: string[] | undefined;
  /** Freezes of public holidays beside the schedule of the flags: "DE" or "DE-BY" each. */
  holidays?: string[] | undefined;
  tz?: string | undefined;
  /** RFC 3339; default `now`. */
  from?: string | undefined;
  /** RFC 3339; default `from` + 7 days. */
  to?: string | undefined;
  output: "table" | "json" | "yaml";
  /** The current time, injected. */
  now: number;
  /** Where the output is written as it is made (a year can have half a million rows); without it, the output is returned. */
  out?: NodeJS.WritableStream | undefined;
}

/** The machine-readable preview: merged effective open intervals in `[from, to)`, UTC. */
export interface PreviewResult {
  timeZone: string;
  open: Array<{ start: string; end: string }>;
}

const DAY = 86_400_000;
const MAX_RANGE = 366 * DAY;

/**
 * Previews a window's open intervals over a range and renders them as a table, JSON or YAML.
 *
 * @example await schedulePreview({ start: "0 8 * * MON", end: "0 17 * * THU", tz: "Europe/Berlin", output: "json", now: Date.now() })
 */
export async function schedulePreview(options: SchedulePreviewOptions): Promise<string> {
  const from = options.from === undefined ? Math.floor(options.now / 1000) * 1000 : parseInstant(options.from, "--from");
  const to = options.to === undefined ? from + 7 * DAY : parseInstant(options.to, "--to");
  if (to <= from) throw new UsageError(`--to ${options.to}: must be after --from ${rfc3339(from)}`);
  if (to - from > MAX_RANGE) throw new UsageError(`--to ${options.to}: the range may span at most 366 days`);

  if (options.holidays !== undefined && options.file !== undefined) {
    throw new UsageError("--holidays goes with --start or --recurrence: a window's own holiday freezes are in its spec (freezes: [{holidays: {country: DE}}])");
  }
  const { name, window, overrides }: { name: string; window: CompiledWindow; overrides?: OverrideInput[] } =
    options.window !== undefined
      ? await fromCluster(options, options.window, from)
      : options.file === undefined
        ? fromFlags(options, from)
        : await fromFile(options.file, options.name, from);
  const evaluator = new Evaluator([window], overrides ?? []);
  if (options.output === "table") {
    const lines = tableOf(name, window, evaluator, evaluator.stretches(from, to, { frozenByRule: true }), from, to);
    if (options.out === undefined) return `${[...lines].join("\n")}\n`;
    await writeLines(options.out, lines);
    return "";
  }
  const chunks = machineChunks(window.zone.name, evaluator.stretches(from, to).open, options.output === "yaml" ? await yamlZoneLine(window.zone.name) : null);
  if (options.out === undefined) return Buffer.concat([...chunks]).toString("utf8");
  await writeChunks(options.out, chunks);
  return "";
}

/** YAML quoted, so YAML 1.1 readers keep the times as strings. */
const YAML_OPTIONS = { defaultStringType: "QUOTE_DOUBLE", defaultKeyType: "PLAIN" } as const;

/**
 * `timeZone: ZONE` as yaml's serializer writes it. The YAML library is loaded for YAML only (a manifest read, YAML written): it is 72 modules, 34 to 53 ms of
 * a process's start to load (docs/performance-history.md).
 */
async function yamlZoneLine(zone: string): Promise<string> {
  const { stringify } = await import("yaml");
  return stringify({ timeZone: zone }, YAML_OPTIONS).slice(0, -1);
}

/**
 * The PreviewResult of `open` as JSON (two-space indent) or YAML, in chunks of bytes, an interval at a time: byte for
 * byte what JSON.stringify(result, null, 2) and yaml's stringify(result) write, without ever holding the whole. The
 * times (RFC 3339: digits, `-`, `:`, `.`, `T`, `Z`) need no escape in either and are written as bytes (ByteChunks); the
 * zone's name is written by the serializer itself. `yamlZone`: YAML's first line (yamlZoneLine), null for JSON.
 */
function* machineChunks(zone: string, open: readonly number[], yamlZone: string | null): Generator<Uint8Array> {
  const out = new ByteChunks();
  const json = yamlZone === null;
  out.text(json ? `{\n  "timeZone": ${JSON.stringify(zone)},\n` : `${yamlZone}\n`);
  if (open.length === 0) {
    out.text(json ? `  "open": []\n}\n` : "open: []\n");
    yield out.take();
    return;
  }
  out.text(json ? `  "open": [\n` : "open:\n");
  // Each interval's line but its times, and the JSON's last, which no comma follows.
  const [before, between, after, last] = (
    json ? [`    {\n      "start": "`, `",\n      "end": "`, `"\n    },\n`, `"\n    }\n`] : [`  - start: "`, `"\n    end: "`, `"\n`, `"\n`]
  ).map(ascii) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  for (let i = 0; i < open.length; i += 2) {
    out.bytes(before);
    out.time(open[i] as number);
    out.bytes(between);
    out.time(open[i + 1] as number);
    out.bytes(i + 2 < open.length ? after : last);
    if (out.full) yield out.take();
  }
  if (json) out.text("  ]\n}\n");
  yield out.take();
}

/** An instant of --from or --to, to the second (as every time the preview prints): a fraction is cut. */
function parseInstant(text: string, flag: string): number {
  return Math.floor(inContext({ field: `${flag} ${text}`, as: UsageError }, () => readInstant(text)) / 1000) * 1000;
}

const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  "spec.timeZone": "--tz",
  "spec.schedules[0].start": "--start",
  "spec.schedules[0].end": "--end",
  "spec.schedules[0].duration": "--duration",
  "spec.schedules[0]": "--end/--duration",
  "spec.schedules[0].recurrence": "--recurrence",
  "spec.schedules[0].at": "--at",
  "spec.schedules[0].endAt": "--end-at",
  "spec.schedules[0].dtstart": "--dtstart",
};

/** A window from the cluster, validated as the controller does, with its valid overrides. */
async function fromCluster(
  options: SchedulePreviewOptions,
  name: string,
  now: number,
): Promise<{ name: string; window: CompiledWindow; overrides: OverrideInput[] }> {
  if (options.file !== undefined || options.start !== undefined || options.recurrence !== undefined) {
    throw new UsageError("give one window: WINDOW (from the cluster), --file, --start or --recurrence");
  }
  if (options.holidays !== undefined) throw new UsageError("--holidays goes with --start or --recurrence: a window's own holiday freezes are in its spec");
  // The Kubernetes client is loaded only to read a window from a cluster (not for --file or flags).
  const { connect, getWindow, list } = await import("./kube.ts");
  const c = connect(options);
  const object = await getWindow(c, c.namespace, name);
  const views = new Views();
  const entry = views.window(object, now);
  if (entry.view.compiled === null) {
    throw new UsageError(`window ${name} in ${c.namespace} is invalid:\n${entry.error?.message ?? ""}`);
  }
  const overrides = (await list(c, OVERRIDES, c.namespace))
    .map((o) => views.override(o, now).view)
    .filter((o) => o !== null && o.window === name) as OverrideInput[];
  return { name, window: entry.view.compiled, overrides };
}

function fromFlags(options: SchedulePreviewOptions, now: number): { name: string; window: CompiledWindow } {
  if (options.start === undefined && options.recurrence === undefined) {
    throw new UsageError(
      "give a window: --file WINDOW.yaml, --start CRON with --end CRON or --duration D, or --recurrence RRULE with --at HH:MM and --end-at HH:MM or --duration D (and --tz ZONE)",
    );
  }
  if (options.name !== undefined) throw new UsageError("--name goes with --file");
  const { start, end, duration, recurrence, at, endAt, dtstart, exdates } = options;
  const schedule = { start, end, duration, recurrence, at, endAt, dtstart, exdates };
  const holidays = options.holidays ?? [];
  const timing = {
    ...(options.tz === undefined ? {} : { timeZone: options.tz }),
    schedules: [Object.fromEntries(Object.entries(schedule).filter(([, value]) => value !== undefined))],
    ...(holidays.length === 0 ? {} : { freezes: holidays.map(holidayFreeze) }),
  };
  const rename = (path: string): string =>
    FLAG_OF_FIELD[path] ??
    path
      .replace(/^spec\.schedules\[0\]\.exdates\[(\d+)\]$/, (_, i: string) => `--exdate #${Number(i) + 1}`)
      .replace(/^spec\.freezes\[(\d+)\]\.holidays(\.country|\.subdivision)?$/, (_, i: string) => `--holidays ${holidays[Number(i)] ?? ""}`);
  return { name: "preview", window: inContext({ rename, as: UsageError }, () => validateTiming(timing, "preview", now).compiled) };
}

/** `--holidays DE-BY`: the freeze of Bavaria's public holidays (the country's code, then the subdivision's). */
function holidayFreeze(text: string): { holidays: { country: string; subdivision?: string } } {
  const dash = text.indexOf("-");
  return dash < 0 ? { holidays: { country: text } } : { holidays: { country: text.slice(0, dash), subdivision: text.slice(dash + 1) } };
}

async function fromFile(file: string, wanted: string | undefined, now: number): Promise<{ name: string; window: CompiledWindow }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    throw new UsageError(`${file}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? String(e)})`, { cause: e });
  }
  const [{ parseAllDocuments }, { MAX_ALIAS_COUNT }] = await Promise.all([import("yaml"), import("../gitops/yaml-read.ts")]);
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) throw new UsageError(`${file}: holds no YAML documents`);
  const windows: unknown[] = [];
  for (const doc of docs) {
    const error = doc.errors[0];
    if (error !== undefined) throw new UsageError(`${file}: not valid YAML or JSON: ${error.message}`);
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (e) {
      // An alias bomb, or an alias without its anchor: refused, never expanded.
      throw new UsageError(`${file}: not valid YAML: ${(e as Error).message}`, { cause: e });
    }
    if (isObject(value) && value.kind === "ReconciliationWindow") windows.push(value);
  }
  const named = wanted === undefined ? windows : windows.filter((w) => isObject(w) && isObject(w.metadata) && w.metadata.name === wanted);
  if (named.length !== 1) {
    const names = windows.map((w) => (isObject(w) && isObject(w.metadata) ? String(w.metadata.name) : "?")).join(", ");
    if (windows.length === 0) throw new UsageError(`${file}: holds no ReconciliationWindow (apiVersion ${API_VERSION})`);
    if (wanted !== undefined && named.length === 0) throw new UsageError(`${file}: has no ReconciliationWindow named "${wanted}" (it has: ${names})`);
    throw new UsageError(`${file}: holds ${named.length} ReconciliationWindows (${names}): choose one with --name`);
  }
  const { window, compiled } = inContext({ field: file, as: UsageError }, () => validateWindow(named[0], now));
  return { name: window.metadata.name, window: compiled };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const EXACT = { milliseconds: true } as const;

/** How many changes of state after the range are looked at for the next opening. */
const LOOK_AHEAD = 100;

/** `; it next opens Tue 2028-02-29 00:00 CET (2028-02-28T23:00:00Z)`, or that it does not: what follows a range the window is never open in. */
function nextOpening(evaluator: Evaluator, to: number, zone: CompiledWindow["zone"]): string {
  const at = (t: number): string => `; it next opens ${localTime(t, zone, EXACT)} (${rfc3339Exact(t)})`;
  if (evaluator.stateAt(to).state === "open") return at(to);
  const changes = evaluator.transitions(to, LOOK_AHEAD);
  const opening = changes.find((c) => c.state === "open");
  if (opening !== undefined) return at(opening.at);
  return changes.length < LOOK_AHEAD ? ", nor after it" : `, nor in the ${LOOK_AHEAD} changes of state after it`;
}

/** The table for people, a line at a time: the window, its open intervals, its freezes, and a timeline. */
function* tableOf(
  name: string,
  window: CompiledWindow,
  evaluator: Evaluator,
  stretches: Stretches & { frozenByRule: Segment[] },
  from: number,
  to: number,
): Generator<string> {
  const zone = window.zone;
  yield `Window ${name} in ${zone.name}`;
  yield `Range  ${localTime(from, zone)} → ${localTime(to, zone)}   (${rfc3339(from)} → ${rfc3339(to)})`;
  // Each recurrence rule in words, to check against a calendar.
  for (const rule of [...window.allow, ...window.freeze]) {
    const words = recurrenceWords(rule);
    if (words !== null) yield `Rule   ${rule.ref.kind === "freeze" ? "freeze " : ""}${rule.ref.label}: ${words}`;
  }
  yield "";
  const { open } = stretches;
  const count = open.length / 2;
  if (count === 0) {
    yield `Never open in this range${nextOpening(evaluator, to, zone)}.`;
  } else {
    // In UTC the zone's columns are the UTC ones: shown once.
    const utc = zone.name === "UTC";
    // To the millisecond where a time has one, as the JSON and the length say it. The columns are measured by
    // arithmetic first, so that each row is written as it is made (a year's table is tens of thousands of rows).
    const widths = [0, 0, 0, 0];
    for (let i = 0; i < open.length; i += 2) {
      const start = open[i] as number;
      const end = open[i + 1] as number;
      widths[0] = Math.max(widths[0] as number, localTimeWidth(start, zone, EXACT));
      widths[1] = Math.max(widths[1] as number, localTimeWidth(end, zone, EXACT));
      if (utc) continue;
      widths[2] = Math.max(widths[2] as number, utcTimeWidth(start, EXACT));
      widths[3] = Math.max(widths[3] as number, utcTimeWidth(end, EXACT));
    }
    const header = [`OPENS (${zone.name})`, `CLOSES (${zone.name})`, ...(utc ? [] : ["OPENS (UTC)", "CLOSES (UTC)"]), "LENGTH"];
    yield* measuredTableLines(header, widths, count, (k) => {
      const start = open[2 * k] as number;
      const end = open[2 * k + 1] as number;
      const opens = localTime(start, zone, EXACT);
      const closes = localTime(end, zone, EXACT);
      const length = formatLength(end - start);
      return utc ? [opens, closes, length] : [opens, closes, utcTime(start, EXACT), utcTime(end, EXACT), length];
    });
    let total = 0;
    for (let i = 0; i < open.length; i += 2) total += (open[i + 1] as number) - (open[i] as number);
    const edges = [
      open[0] === from ? "the first interval is cut at the range start" : "",
      open[open.length - 1] === to ? "the last is cut at the range end" : "",
    ]
      .filter((s) => s !== "")
      .join("; ");
    yield "";
    yield `${count} open interval${count === 1 ? "" : "s"}, ${formatLength(total)} open in all (${Math.round((100 * total) / (to - from))}% of the range)${edges ? `; ${edges}` : ""}.`;
  }
  // Each frozen stretch cut where the freeze that decides changes: a run of holidays names each day's.
  const frozen = stretches.frozenByRule;
  if (frozen.length > 0) {
    yield "";
    const widths = [0, 0];
    for (const f of frozen) {
      widths[0] = Math.max(widths[0] as number, localTimeWidth(f.start, zone, EXACT));
      widths[1] = Math.max(widths[1] as number, localTimeWidth(f.end, zone, EXACT));
    }
    yield* measuredTableLines([`FROZEN FROM (${zone.name})`, "UNTIL", "REASON"], widths, frozen.length, (k) => {
      const s = frozen[k] as Segment;
      return [localTime(s.start, zone, EXACT), localTime(s.end, zone, EXACT), s.cause?.reason ?? `freeze ${s.cause?.label ?? ""}`];
    });
  }
  yield "";
  yield `Timeline in ${zone.name}, one column per hour:  ${TIMELINE_LEGEND}`;
  yield* timeline(open, stretches.frozen, zone, from, to);
}
