// Process entry of the Git smart-HTTP server: `node git-server-main.ts --root DIR --port N` (started by `startControlPlane` with `flux`).
import { parseArgs } from "node:util";
import { createGitServer } from "./git-http.ts";

const { values } = parseArgs({ options: { root: { type: "string" }, port: { type: "string" } } });
if (values.root === undefined || values.port === undefined) {
  process.stderr.write("usage: git-server-main.ts --root DIR --port N\n");
  process.exit(2);
}
const root = values.root;
const port = Number(values.port);
const server = createGitServer(root);
server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`git server for ${root} listening on http://127.0.0.1:${port}\n`);
});
process.on("SIGTERM", () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
