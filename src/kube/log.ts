// Structured JSON logs in the Kubernetes style, the one format of the controller and the Config Service: one object per line with ts, level, msg and fields.

import { InputError } from "../errors.ts";
import { apiStatusOf } from "./errors.ts";

export type LogLevel = "debug" | "info" | "error";

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, error: 2 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** An error as one short line: for an API error, its code and the Status message, without headers. */
function errorText(value: unknown): unknown {
  if (!(value instanceof Error)) return value;
  const { body } = value as { body?: unknown };
  if (body === undefined) return value.message;
  const { code, message } = apiStatusOf(value);
  return `HTTP ${String(code)}: ${message || JSON.stringify(body)}`;
}

/** A logger writing JSON lines at `level` and above to `write`. */
export function jsonLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const log = (lvl: LogLevel, msg: string, fields: Record<string, unknown> = {}): void => {
    if (ORDER[lvl] < ORDER[level]) return;
    const out: Record<string, unknown> = { ts: new Date().toISOString(), level: lvl, msg };
    for (const [k, v] of Object.entries(fields)) out[k] = k === "err" ? errorText(v) : v;
    write(`${JSON.stringify(out)}\n`);
  };
  return {
    debug: (m, f) => log("debug", m, f),
    info: (m, f) => log("info", m, f),
    error: (m, f) => log("error", m, f),
  };
}

export function parseLogLevel(value: string): LogLevel {
  if (value === "debug" || value === "info" || value === "error") return value;
  throw new InputError(`--log-level ${value}: must be one of debug, info, error`);
}
