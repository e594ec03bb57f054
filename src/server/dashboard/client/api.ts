/// <reference lib="dom" />
// The dashboard's client of the REST API: the bearer token from the page's storage, typed errors with field problems.

import type { FieldProblem } from "../../../api/index.ts";

const TOKEN_KEY = "fluxgate.token";

/**
 * A token in the URL fragment (`#token=...`, as `fluxgate serve` prints it), stored and taken out of
 * the address; null when there is none. Called at load and whenever the fragment changes, so a
 * sign-in link pasted into a tab that already shows the dashboard signs it in.
 */
export function tokenFromHash(): string | null {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match === null) return null;
  const token = decodeURIComponent(match[1] as string);
  localStorage.setItem(TOKEN_KEY, token);
  history.replaceState(null, "", `${location.pathname}${location.search}#/`);
  return token;
}

/** The stored token, after taking one from the URL fragment. */
export function initialToken(): string | null {
  return tokenFromHash() ?? localStorage.getItem(TOKEN_KEY);
}

export function storeToken(token: string | null): void {
  if (token === null) localStorage.removeItem(TOKEN_KEY);
  else localStorage.setItem(TOKEN_KEY, token);
}

/** A failed API call: its status, message and field problems. */
export class ApiError extends Error {
  readonly status: number;
  readonly problems: FieldProblem[];
  constructor(status: number, message: string, problems: FieldProblem[]) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.problems = problems;
  }
}

/** The response of a call, with its ETag header. */
export interface Answer<T> {
  body: T;
  etag: string | null;
}

/** Calls the API with the stored token; throws ApiError on an error status. */
export async function call<T>(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
  const token = localStorage.getItem(TOKEN_KEY);
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, body: options.body === undefined ? null : JSON.stringify(options.body) });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? null : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    const error = (parsed as { error?: { message?: string; problems?: FieldProblem[] } } | null)?.error;
    throw new ApiError(response.status, error?.message ?? `${response.status} ${response.statusText}`, error?.problems ?? []);
  }
  return { body: parsed as T, etag: response.headers.get("ETag")?.replace(/^"|"$/g, "") ?? null };
}

export async function get<T>(path: string): Promise<T> {
  return (await call<T>("GET", path)).body;
}
