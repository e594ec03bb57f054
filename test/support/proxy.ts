// A tunnelling HTTP proxy, as the proxy agents @kubernetes/client-node makes use: it answers CONNECT, records the address each tunnel asked for and joins it.

import { createServer, type IncomingMessage } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";

export interface TunnellingProxy {
  /** `http://127.0.0.1:PORT`, for a kubeconfig's `proxy-url`. */
  readonly url: string;
  /** The address each CONNECT asked to reach (`host:port`), in order. */
  readonly asked: readonly string[];
  /** Closes the proxy and every tunnel it holds (a tunnel is no longer the server's connection: each is closed here). */
  close(): Promise<void>;
}

/** Starts a proxy on loopback; each tunnel joins the address it asked for, or `to` where the test names one (an address that does not resolve). */
export async function startTunnellingProxy(to?: { host: string; port: number }): Promise<TunnellingProxy> {
  const asked: string[] = [];
  const tunnels = new Set<Socket>();
  const proxy = createServer();
  proxy.on("connect", (req: IncomingMessage, client: Socket) => {
    asked.push(req.url ?? "");
    tunnels.add(client);
    const [host, port] = (req.url ?? "").split(":");
    const upstream = connect(to?.port ?? Number(port), to?.host ?? host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.pipe(client);
      client.pipe(upstream);
    });
    tunnels.add(upstream);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    asked,
    close: async () => {
      for (const socket of tunnels) socket.destroy();
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
