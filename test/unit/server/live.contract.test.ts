// The LiveSource contract, held by the in-memory implementation the route tests use.

import { liveSourceContract, MemoryLive } from "../../support/live.ts";

liveSourceContract("MemoryLive", () => {
  const live = new MemoryLive(new Map([["edge-berlin", "berlin-admin"]]));
  return Promise.resolve({
    live,
    cluster: "edge-berlin",
    context: "berlin-admin",
    addWindow: (window) => {
      live.windows.set("edge-berlin", [...(live.windows.get("edge-berlin") ?? []), window]);
      return Promise.resolve();
    },
  });
});
