// A kubeconfig user's `tokenFile`, which kubectl and client-go read and @kubernetes/client-node 1.x ignores: the token is read from the file, and again when it
// changes.

import type { KubeConfig } from "@kubernetes/client-node";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { parse } from "yaml";

/** The files a default load reads, as client-node's loadFromDefault picks them: $KUBECONFIG's, else ~/.kube/config. */
export function defaultKubeconfigFiles(): string[] {
  const env = process.env["KUBECONFIG"];
  if (env !== undefined && env !== "") return env.split(delimiter).filter((f) => f !== "");
  const home = join(homedir(), ".kube", "config");
  return existsSync(home) ? [home] : [];
}

/**
 * Gives each user of `kc` that has a `tokenFile` in `files` (and no token, exec plugin or auth
 * provider of its own) client-node's file token source, which reads the file at the first request
 * and again a minute after each read, as client-go does: a rotated token is picked up without a
 * restart. A relative path is relative to the kubeconfig file, as kubectl reads it. (client-node
 * refuses a user named in two files of $KUBECONFIG, where kubectl takes the first; the first wins here too.)
 */
export function honourTokenFiles(kc: KubeConfig, files: readonly string[]): void {
  const tokenFiles = new Map<string, string>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    // Most kubeconfigs name no token file: not parsed a second time (client-node parsed it), 10-15 ms of each start of the controller.
    if (!text.includes("tokenFile")) continue;
    const doc = parse(text) as { users?: { name?: unknown; user?: { tokenFile?: unknown } }[] } | null;
    for (const entry of doc?.users ?? []) {
      const path = entry.user?.tokenFile;
      if (typeof entry.name !== "string" || typeof path !== "string" || path === "" || tokenFiles.has(entry.name)) continue;
      tokenFiles.set(entry.name, isAbsolute(path) ? path : join(dirname(file), path));
    }
  }
  if (tokenFiles.size === 0) return;
  kc.users = kc.users.map((user) => {
    const tokenFile = tokenFiles.get(user.name);
    const hasOwn = [user.token, user.exec as unknown, user.authProvider as unknown].some((v) => v !== undefined && v !== null);
    if (tokenFile === undefined || hasOwn) return user;
    return { ...user, authProvider: { name: "tokenFile", config: { tokenFile } } };
  });
}
