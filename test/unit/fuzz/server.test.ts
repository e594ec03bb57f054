// Fuzzing the Config Service in-process: random methods, paths (every route of the OpenAPI document, hostile path segments), queries, headers and bodies never
// get a 5xx, never write outside the repository, and never commit unless a token that may write asked for it and got a 2xx.

import { EVENTS_PATH } from "../../../src/server/routes/status.ts";
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { dirname } from "node:path";
import fc from "fast-check";
import { openApiDocument } from "../../../src/server/http/openapi.ts";
import { berlinSpec, fixture, git, type Fixture } from "../../support/server.ts";
import { fuzz } from "./harness.ts";
import { cronText, durationText, junk, OBJECT_WORDS } from "./inputs.ts";

let f: Fixture;
let outside: string[];

async function setup(): Promise<void> {
  f = await fixture({ rateLimit: { burst: 1_000_000, perSecond: 1_000_000 } });
  outside = await readdir(dirname(f.dir));
}

async function teardown(): Promise<void> {
  assert.deepEqual(await readdir(dirname(f.dir)), outside, "nothing was written next to the repository");
  await f.cleanup();
}

const PATHS = (openApiDocument("fuzz") as { paths: Record<string, Record<string, unknown>> }).paths;
const ROUTES = Object.keys(PATHS);
/** Every operation of the OpenAPI document: a method and a path template. */
const OPERATIONS = Object.entries(PATHS).flatMap(([route, item]) =>
  Object.keys(item)
    .filter((m) => ["get", "put", "post", "patch", "delete"].includes(m))
    .map((m) => ({ method: m.toUpperCase(), route })),
);

/** A path segment where a cluster or window name goes: real names, traversal, encodings, option-like and shell-like text. */
const hostileSegment = (...real: string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 24, arbitrary: fc.constantFrom(...real) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        "..",
        "../..",
        "%2e%2e",
        "%2e%2e%2f%2e%2e%2fetc",
        "..%2F..%2Fetc%2Fpasswd",
        "%2Fetc%2Fpasswd",
        "%00",
        "apps-rw%00.yaml",
        "a%5Cb",
        "..%5C..%5C",
        "%252e%252e",
        "--upload-pack=touch%20pwned",
        "%24(touch%20pwned)",
        "%60id%60",
        "-rf",
        "APPS-RW",
        "apps_rw",
        "apps-rw.yaml",
        "a".repeat(300),
        "%C0%AE%C0%AE",
        "%ff",
        ".git",
        "HEAD",
        ...OBJECT_WORDS,
      ),
    },
    { weight: 1, arbitrary: junk.map((s) => encodeURIComponent(s.slice(0, 400).toWellFormed()).replaceAll("%2F", "/")) },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
  );
const clusterSegment = hostileSegment("edge-berlin", "edge-tokyo", "edge-newyork");
// Names the layout reserves ("kustomization", "overrides") must be refused before any write; the
// default name of an override asked for at the fixture's clock makes some override DELETEs real.
const nameSegment = hostileSegment(
  "apps-rw",
  "new-window",
  "other.window",
  "kustomization",
  "overrides",
  "apps-rw-open-20261123-100000",
  "apps-rw-freeze-20261123-100000",
);
const segment = fc.oneof(clusterSegment, nameSegment);

const fill = (route: string, a: string, b: string): string => route.replace("{cluster}", a).replace("{name}", b);

const queryValue = fc.oneof(
  fc.constantFrom("2026-11-23T00:00:00Z", "2026-12-01T00:00:00+01:00", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "1", "-1", "", "x"),
  junk.map((s) => s.slice(0, 200)),
);
const query = fc
  .array(
    fc.tuple(
      fc.constantFrom("from", "to", "pretty", "reason", "reason", "access_token", "count", "expired", "x", "__proto__"),
      fc.oneof(queryValue, fc.constant("true")),
    ),
    { maxLength: 3 },
  )
  .map((pairs) => (pairs.length === 0 ? "" : `?${new URLSearchParams(pairs).toString()}`));

/** Header text that a client can send at all (visible ASCII). */
const headerText = fc.oneof(
  fc.constantFrom("*", '"abc"', 'W/"x", "y"', ""),
  fc.string({ maxLength: 40 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
);

const reason = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("Fuzzing", "$(touch pwned)", "--upload-pack=touch pwned", "`id`", "a\nb") },
  { weight: 1, arbitrary: fc.string() },
);
const windowBody = fc.record(
  {
    spec: fc.oneof(
      { weight: 3, arbitrary: fc.constant(berlinSpec()) },
      {
        weight: 2,
        arbitrary: fc.record({
          timeZone: fc.constantFrom("UTC", "Europe/Berlin", "Mars/Base"),
          schedules: fc.array(fc.record({ start: cronText, duration: durationText }), { maxLength: 2 }),
          targets: fc.constant([{ kind: "Kustomization", name: "apps-rw" }]),
        }),
      },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    ),
    reason,
  },
  { requiredKeys: ["spec", "reason"] },
);
const overrideBody = fc
  .record({
    window: fc.oneof({ weight: 4, arbitrary: fc.constant("apps-rw") }, { weight: 1, arbitrary: fc.string() }),
    action: fc.constantFrom("Open", "Freeze", "Freeze", "Close"),
    end: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom("1h", "30m", "2h").map((duration) => ({ duration })) },
      { weight: 1, arbitrary: durationText.map((duration) => ({ duration })) },
      { weight: 1, arbitrary: queryValue.map((until) => ({ until })) },
      { weight: 1, arbitrary: fc.record({ until: queryValue, duration: durationText }) },
    ),
    reason,
    more: fc.record({
      name: fc.option(fc.oneof(fc.string(), fc.constantFrom("--upload-pack=x", "../x", "a".repeat(300))), { nil: undefined, freq: 4 }),
      delivery: fc.option(fc.constantFrom("git", "direct", "x"), { nil: undefined, freq: 4 }),
    }),
  })
  .map(({ end, more, ...rest }) => ({ ...rest, ...end, ...more }));
const patchBody = fc.oneof(
  windowBody.map(({ spec, reason }) => ({
    spec: typeof spec === "object" && spec !== null && !Array.isArray(spec) ? { ...spec, freezes: null } : spec,
    reason,
  })),
  fc.constant([{ op: "replace", path: "/spec/schedules/0/duration", value: "5h" }]),
  fc.array(
    fc.record(
      {
        op: fc.constantFrom("add", "remove", "replace", "move", "copy", "test", "x"),
        path: fc.constantFrom("/spec", "/spec/schedules/0", "/spec/targets/-", "/metadata/name", "", "/spec/freezes/9"),
        value: fc.jsonValue({ maxDepth: 2 }),
        from: fc.constantFrom("/spec/schedules/0", "/x"),
      },
      { requiredKeys: ["op", "path"] },
    ),
    { maxLength: 3 },
  ),
);
const previewBody = fc.record(
  {
    spec: fc.oneof(
      windowBody.map((b) => b.spec),
      fc.jsonValue({ maxDepth: 3 }),
    ),
    from: queryValue,
    to: queryValue,
    count: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer()),
  },
  { requiredKeys: ["spec"] },
);

/** A body for the operation, now and then one for another, or none, or junk, or one too large. */
function bodyFor(method: string, route: string): fc.Arbitrary<string | undefined> {
  const fitting =
    method === "PUT"
      ? windowBody
      : method === "PATCH"
        ? patchBody
        : route.endsWith("/overrides") && method === "POST"
          ? overrideBody
          : route.endsWith("/preview")
            ? previewBody
            : fc.record({ reason });
  return fc.oneof(
    { weight: 12, arbitrary: fitting.map((b) => JSON.stringify(b)) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
    { weight: 1, arbitrary: junk },
    { weight: 1, arbitrary: fc.integer({ min: 64 * 1024, max: 80 * 1024 }).map((n) => JSON.stringify({ reason: "x".repeat(n), spec: {} })) },
  );
}

const contentType = fc.oneof(
  { weight: 12, arbitrary: fc.constant("application/json") },
  { weight: 4, arbitrary: fc.constantFrom("application/merge-patch+json", "application/json-patch+json") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      undefined,
      "application/json; charset=utf-8",
      "application/JSON",
      "text/plain",
      "application/yaml",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonx",
    ),
  },
);

interface Call {
  method: string;
  path: string;
  query: string;
  token: "none" | "garbage" | "wrong" | "viewer" | "editor" | "breakglass";
  contentType: string | undefined;
  ifMatch: string | undefined;
  body: string | undefined;
}

/** A request: mostly an operation of the document with fitting parts, sometimes any method on any path. */
const call = (tokens: Call["token"][]): fc.Arbitrary<Call> => {
  const target = fc.oneof(
    // Writes weigh more: they have the most to check.
    {
      weight: 8,
      arbitrary: fc.constantFrom(...OPERATIONS.flatMap((op) => (op.method === "GET" ? [op] : [op, op, op, op]))).chain(({ method, route }) =>
        fc.record({
          method: fc.constant(method),
          path: fc.tuple(clusterSegment, nameSegment).map(([a, b]) => fill(route, a, b)),
          body: bodyFor(method, route),
        }),
      ),
    },
    // Names that collide with the layout's own files, with bodies that would otherwise be accepted.
    {
      weight: 2,
      arbitrary: fc.record({
        method: fc.constantFrom("PUT", "PUT", "PATCH", "DELETE"),
        path: fc
          .tuple(fc.constantFrom("edge-berlin", "edge-tokyo"), fc.constantFrom("kustomization", "overrides"))
          .map(([k, n]) => `/api/v1/clusters/${k}/windows/${n}`),
        body: fc
          .constantFrom(berlinSpec(), {
            timeZone: "UTC",
            schedules: [{ start: "@daily", duration: "1h" }],
            targets: [{ kind: "Kustomization", name: "apps-rw" }],
          })
          .map((spec) => JSON.stringify({ spec, reason: "Fuzzing" })),
        contentType: fc.constant("application/json"),
        ifMatch: fc.constant(undefined),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"),
        path: fc.oneof(
          fc.tuple(fc.constantFrom(...ROUTES), segment, segment).map(([route, a, b]) => fill(route, a, b)),
          fc.constantFrom(
            "/",
            "/docs",
            "/assets/app/styles.css",
            "/assets/app/main.js",
            "/assets/app/../../../../etc/passwd",
            "/assets/vendor/%2e%2e%2fpackage.json",
            "/favicon.ico",
            "/api",
            "/api/v2/clusters",
            "//api/v1/clusters",
            "/api/v1/clusters/",
            "/api/v1/clusters/edge-berlin/windows/apps-rw/x",
          ),
          fc.array(segment, { maxLength: 6 }).map((parts) => `/api/v1/${parts.join("/")}`),
        ),
        body: bodyFor("POST", "/any"),
      }),
    },
  );
  return fc
    .record({
      target,
      query: fc.option(query, { nil: "", freq: 2 }),
      token: fc.constantFrom(...tokens),
      contentType,
      ifMatch: fc.option(headerText, { nil: undefined, freq: 10 }),
    })
    .map(({ target, ...rest }) => ({ ...rest, ...target }));
};

/** Sends `c`; null when no client could send it (the Request cannot be built). */
async function send(c: Call): Promise<{ status: number; text: string; pathname: string } | null> {
  const headers = new Headers();
  const token = {
    none: null,
    garbage: "Bearer",
    wrong: "Bearer fgt_wrong",
    viewer: `Bearer ${f.tokens.viewer}`,
    editor: `Bearer ${f.tokens.editor}`,
    breakglass: `Bearer ${f.tokens.breakglass}`,
  }[c.token];
  if (token !== null) headers.set("authorization", token);
  if (c.contentType !== undefined) headers.set("content-type", c.contentType);
  if (c.ifMatch !== undefined) headers.set("if-match", c.ifMatch);
  let request: Request;
  try {
    const withBody = c.body !== undefined && c.method !== "GET" && c.method !== "HEAD";
    request = new Request(`http://localhost${c.path}${c.query}`, { method: c.method, headers, ...(withBody ? { body: c.body } : {}) });
  } catch {
    return null;
  }
  const response = await f.app.request(request);
  return { status: response.status, text: await response.text(), pathname: new URL(request.url).pathname };
}

const WRITES = new Set(["PUT", "POST", "PATCH", "DELETE"]);

/**
 * Sends `c` and checks it is not a 5xx, and that an error answer left HEAD and the work tree as they
 * were; the answer (null when unsendable) and whether HEAD moved.
 */
async function sendChecked(c: Call): Promise<{ answer: { status: number; pathname: string }; committed: boolean } | null> {
  const before = await f.repository.head();
  const tree = await git(f.dir, "status", "--porcelain", "--untracked-files=all");
  const answer = await send(c);
  if (answer === null) return null;
  assert.ok(answer.status < 500, `${c.method} ${c.path}${c.query}: ${answer.status} ${answer.text.slice(0, 300)}`);
  const committed = (await f.repository.head()) !== before;
  if (answer.status >= 400) {
    assert.equal(committed, false, `${c.method} ${c.path}${c.query} answered ${answer.status} yet committed`);
    assert.equal(
      await git(f.dir, "status", "--porcelain", "--untracked-files=all"),
      tree,
      `${c.method} ${c.path}${c.query} answered ${answer.status} yet changed the work tree`,
    );
  }
  return { answer, committed };
}

fuzz(import.meta.url, {
  "without a token that may write: never a 5xx, never a commit": {
    arbitrary: call(["none", "garbage", "wrong", "viewer"]),
    numRuns: 400,
    setup,
    teardown,
    check: async (c: Call) => {
      const sent = await sendChecked(c);
      if (sent === null) return;
      assert.equal(sent.committed, false, `${c.method} ${c.path} committed (${sent.answer.status})`);
      // The event receiver authenticates clusters by signature, not token: off here, it is 404 to everyone (413 past the body limit).
      if (c.method === "POST" && EVENTS_PATH.test(sent.answer.pathname))
        assert.ok([404, 413].includes(sent.answer.status), `${c.method} ${sent.answer.pathname}: ${sent.answer.status}`);
      else if (c.token !== "viewer" && sent.answer.pathname.startsWith("/api/"))
        assert.equal(sent.answer.status, 401, `${c.method} ${sent.answer.pathname} with token ${c.token}`);
    },
  },

  "with tokens that may write: never a 5xx; a commit only for a write answered 2xx": {
    arbitrary: call(["editor", "editor", "editor", "editor", "breakglass", "viewer"]),
    numRuns: 300,
    setup,
    teardown,
    check: async (c: Call) => {
      const sent = await sendChecked(c);
      if (sent?.committed === true) {
        assert.ok(WRITES.has(c.method) && sent.answer.status >= 200 && sent.answer.status < 300, `${c.method} ${c.path} committed with ${sent.answer.status}`);
      }
    },
  },
});
