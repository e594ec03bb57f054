// The error vocabulary: every family is an input error or a failure, and each edge maps the two once (exit code, HTTP status).

import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ValidationError } from "../../src/api/index.ts";
import { OperationalError, UsageError } from "../../src/cli/errors.ts";
import { main } from "../../src/cli/main.ts";
import { StartupError } from "../../src/devenv/errors.ts";
import { Failure, inContext, InputError } from "../../src/errors.ts";
import { RepositoryInputError, ToolFailedError } from "../../src/gitops/errors.ts";
import { RequestTimeoutError } from "../../src/kube/connection.ts";
import { parseDuration, ScheduleError } from "../../src/schedule/index.ts";
import { ConfigError } from "../../src/server/model/errors.ts";
import { HttpError, httpErrorOf } from "../../src/server/http/errors.ts";
import { GitError } from "../../src/server/git/git.ts";

test("each family is an input error (with field problems) or a failure", () => {
  const inputs = [
    new ScheduleError("not a cron", "spec.schedules[0].start"),
    new ValidationError([{ path: "spec.mode", message: "bad" }]),
    new UsageError("--for: missing"),
    new RepositoryInputError("no fluxgate.yaml"),
    new ConfigError("tokens.yaml: unreadable"),
  ];
  for (const e of inputs) {
    assert.ok(e instanceof InputError && !(e instanceof Failure), e.name);
    assert.ok(e.problems.length > 0, `${e.name} carries its problems`);
  }
  assert.deepEqual(inputs[0]?.problems, [{ path: "spec.schedules[0].start", message: "not a cron" }]);
  const failures = [
    new OperationalError("cluster unreachable"),
    new ToolFailedError("kustomize failed"),
    new StartupError("etcd did not start"),
    new GitError(["push"], "rejected", 1),
    new RequestTimeoutError("no answer"),
  ];
  for (const e of failures) assert.ok(e instanceof Failure && !(e instanceof InputError), e.name);
  assert.equal(new StartupError("x").name, "StartupError");
  assert.equal(new StartupError("x").reason, "StartupFailed");
});

test("inContext says where an input came from in front of its problems, and lets anything else through", () => {
  const flag = (): unknown => {
    try {
      return inContext({ field: "--sync-interval 5x", as: UsageError }, () => parseDuration("5x"));
    } catch (e) {
      return e;
    }
  };
  const e = flag();
  assert.ok(e instanceof UsageError);
  assert.match(e.message, /^--sync-interval 5x: duration "5x" is not a Go duration/);
  assert.deepEqual(
    e.problems.map((p) => p.path),
    ["--sync-interval 5x"],
  );
  assert.ok(e.cause instanceof ScheduleError);
  // A field whose problems name the input themselves, and a heading that keeps the problems' own fields.
  assert.throws(() => inContext({ field: "--for", separator: " " }, () => parseDuration("2d")), /^InputError: --for duration "2d" is not a Go duration/);
  const twoProblems = new ValidationError([
    { path: "spec.mode", message: "bad" },
    { path: "spec.timeZone", message: "unknown" },
  ]);
  assert.throws(
    () =>
      inContext({ heading: "invalid request body", oneLine: true }, () => {
        throw twoProblems;
      }),
    (h: InputError) => {
      assert.equal(h.message, "invalid request body: spec.mode: bad; spec.timeZone: unknown");
      assert.deepEqual(h.problems, twoProblems.problems);
      assert.equal(h.reason, "InvalidSpec");
      return true;
    },
  );
  assert.throws(
    () =>
      inContext({ reason: "Other" }, () => {
        throw twoProblems;
      }),
    (r: InputError) => r.reason === "Other" && r.message === twoProblems.message,
  );
  const renamed = (): unknown => {
    try {
      return inContext({ rename: (path) => (path === "spec.mode" ? "--mode" : path) }, () => {
        throw twoProblems;
      });
    } catch (e) {
      return e;
    }
  };
  assert.equal((renamed() as InputError).message, "--mode: bad\nspec.timeZone: unknown");
  const boom = new OperationalError("unreachable");
  assert.throws(
    () =>
      inContext({ field: "--x" }, () => {
        throw boom;
      }),
    (x) => x === boom,
  );
  assert.equal(
    inContext({ field: "--x" }, () => 7),
    7,
  );
});

test("the HTTP edge: input 400 with its problems, the service's own configuration 503, Git 500, anything else an opaque 500", () => {
  const bad = httpErrorOf(new ScheduleError("not a cron", "spec.schedules[0].start"));
  assert.equal(bad.status, 400);
  assert.equal(bad.message, "spec.schedules[0].start: not a cron");
  assert.deepEqual(bad.problems, [{ path: "spec.schedules[0].start", message: "not a cron" }]);
  assert.equal(httpErrorOf(new ConfigError("fluxgate.yaml: bad")).status, 503);
  assert.match(httpErrorOf(new GitError(["push"], "rejected", 1)).message, /^a Git command failed: git push failed \(exit 1\): rejected$/);
  const opaque = httpErrorOf(new OperationalError("secret detail"));
  assert.equal(opaque.status, 500);
  assert.doesNotMatch(opaque.message, /secret/);
  const own = new HttpError(409, "exists");
  assert.equal(httpErrorOf(own), own);
});

test("the CLI edge: an input error exits 2, a failure 1, each as one line", async () => {
  const run = async (argv: string[]): Promise<{ code: number; stderr: string }> => {
    let stderr = "";
    const sink = { write: (t: string) => ((stderr += t), true) } as unknown as NodeJS.WritableStream;
    const code = await main(argv, { write: () => true } as unknown as NodeJS.WritableStream, sink);
    return { code, stderr };
  };
  const schedule = await run(["schedule", "preview", "--start", "not a cron", "--duration", "1h"]);
  assert.equal(schedule.code, 2);
  assert.match(schedule.stderr, /^error: /);
  const check = await run(["check", "/nonexistent/fluxgate-repo"]);
  assert.equal(check.code, 2, check.stderr);
  assert.equal(check.stderr.split("\n").filter((l) => l !== "").length, 1, check.stderr);
  // A cluster that is not there: a failure, not bad input.
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-errors-"));
  try {
    const kubeconfig = join(dir, "kubeconfig");
    await writeFile(
      kubeconfig,
      "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n",
    );
    const unreachable = await run(["status", "--kubeconfig", kubeconfig]);
    assert.equal(unreachable.code, 1, unreachable.stderr);
    assert.match(unreachable.stderr, /^error: cannot reach the cluster at https:\/\/127\.0\.0\.1:1/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
