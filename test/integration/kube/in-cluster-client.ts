// A process that loads its kubeconfig as the controller does, with nothing but in-cluster credentials to find, and asks the API server who it is each time it
// reads a line.

import { createInterface } from "node:readline";
import { Connection, loadKubeConfig } from "../../../src/kube/connection.ts";
import { whoIs } from "./forms.ts";

const kc = loadKubeConfig();
// One connection for the life of the process, as the controller keeps one.
const connection = new Connection(kc);
process.stdout.write(JSON.stringify({ server: kc.getCurrentCluster()?.server, user: kc.getCurrentUser()?.name }) + "\n");
for await (const line of createInterface({ input: process.stdin })) {
  if (line === "") continue;
  try {
    process.stdout.write(JSON.stringify(await whoIs(connection)) + "\n");
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: e instanceof Error ? e.message : String(e) }) + "\n");
  }
}
connection.close();
