// HEAD read from git's ref files agrees with `git rev-parse` in every state a working copy can be in, and says null where the files cannot tell.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { Git } from "../../../src/server/git/git.ts";
import { HeadFiles } from "../../../src/server/git/refs.ts";

const run = promisify(execFile);
const ID = ["-c", "user.name=t", "-c", "user.email=t@fluxgate.invalid", "-c", "commit.gpgSign=false"];

async function git(dir: string, ...args: string[]): Promise<string> {
  return (await run("git", [...ID, ...args], { cwd: dir })).stdout.trim();
}

async function commit(dir: string, text: string): Promise<string> {
  await writeFile(join(dir, "f.txt"), text);
  await git(dir, "add", "f.txt");
  await git(dir, "commit", "--quiet", "-m", text);
  return await git(dir, "rev-parse", "HEAD");
}

test("HEAD from the ref files: a loose branch, a packed one, a clone, a worktree, a symbolic ref, a new commit after packing", async () => {
  const root = await mkdtemp(join(tmpdir(), "fluxgate-refs-"));
  try {
    const dir = join(root, "repo");
    await run("git", ["init", "--quiet", "--initial-branch=main", dir]);
    const files = await HeadFiles.of(new Git(dir));

    // No commit yet: the branch has no ref; git is asked (and says so).
    assert.equal(await files.commit(), null);

    const first = await commit(dir, "one");
    assert.equal(await files.commit(), first, "a loose ref");

    await git(dir, "pack-refs", "--all");
    assert.equal(await files.commit(), first, "the branch only in packed-refs");

    const second = await commit(dir, "two");
    assert.equal(await files.commit(), second, "a loose ref newer than packed-refs");

    // A branch that is a symbolic ref to another.
    await git(dir, "symbolic-ref", "refs/heads/alias", "refs/heads/main");
    await git(dir, "symbolic-ref", "HEAD", "refs/heads/alias");
    assert.equal(await files.commit(), second, "HEAD -> alias -> main");
    await git(dir, "symbolic-ref", "HEAD", "refs/heads/main");

    // Detached: HEAD holds the id itself.
    await git(dir, "checkout", "--quiet", "--detach", first);
    assert.equal(await files.commit(), first, "detached HEAD");
    await git(dir, "checkout", "--quiet", "main");

    // A clone writes its branches to packed-refs.
    const clone = join(root, "clone");
    await run("git", ["clone", "--quiet", dir, clone]);
    assert.equal(await (await HeadFiles.of(new Git(clone))).commit(), second, "a fresh clone");

    // A worktree: its own HEAD, the branches of the repository it belongs to.
    const tree = join(root, "tree");
    await git(dir, "worktree", "add", "--quiet", "-b", "other", tree, first);
    const treeFiles = await HeadFiles.of(new Git(tree));
    assert.equal(await treeFiles.commit(), first, "a worktree's HEAD");
    const third = await commit(tree, "three");
    assert.equal(await treeFiles.commit(), third);
    assert.equal(await files.commit(), second, "the main working copy unmoved");

    // Each answer is what git says.
    for (const d of [dir, clone, tree]) assert.equal(await (await HeadFiles.of(new Git(d))).commit(), await git(d, "rev-parse", "--verify", "HEAD^{commit}"));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("HEAD files that do not say a commit plainly give null: git is asked instead", async () => {
  const root = await mkdtemp(join(tmpdir(), "fluxgate-refs-"));
  try {
    const dir = join(root, "repo");
    await run("git", ["init", "--quiet", "--initial-branch=main", dir]);
    await commit(dir, "one");
    const files = await HeadFiles.of(new Git(dir));
    const head = join(files.gitDir, "HEAD");
    // What a repository with its refs in a reftable has in HEAD (git 2.45 and later).
    await writeFile(head, "ref: refs/heads/.invalid\n");
    assert.equal(await files.commit(), null);
    // A name that would leave the refs directory.
    await writeFile(head, "ref: refs/../../etc/passwd\n");
    assert.equal(await files.commit(), null);
    await writeFile(head, "ref: refs/heads/missing\n");
    assert.equal(await files.commit(), null);
    await writeFile(head, "not a ref\n");
    assert.equal(await files.commit(), null);
    // A loop of symbolic refs.
    await writeFile(join(files.commonDir, "refs", "heads", "a"), "ref: refs/heads/b\n");
    await writeFile(join(files.commonDir, "refs", "heads", "b"), "ref: refs/heads/a\n");
    await writeFile(head, "ref: refs/heads/a\n");
    assert.equal(await files.commit(), null);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
