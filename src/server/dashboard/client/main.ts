/// <reference lib="dom" />
// The dashboard's entry: signs in with a token, routes between the fleet timeline, a cluster and the window editor.

import { html, render } from "htm/preact";
import type { VNode } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { FleetPushStatus } from "../../status/view.ts";
import type { FleetWaiting } from "../../status/waiting.ts";
import { WaitingPanel } from "./waiting.ts";
import { utcDay, utcTime } from "./time.ts";
import { ApiError, get, initialToken, listClusters, onCommit, storeToken, tokenFromHash, type ClusterItem } from "./api.ts";
import { DEFAULT_TIME_ZONE } from "./defaults.ts";
import { FleetPage } from "./fleet.ts";
import { localeData } from "./locale.ts";
import { Lazy, type Later } from "./lazy.ts";
import type { ClusterPage as ClusterPageComponent } from "./cluster.ts";
import type { WindowEditor as WindowEditorComponent } from "./editor.ts";
import type { FleetEditPage as FleetEditPageComponent } from "./fleet-edit.ts";

// The other pages, each with its modules when it is first opened: a load of the fleet page evaluates only its own (docs/performance-history.md, "A frame's
// share of bands sized by the last frame's time; the other pages loaded when opened").
// Their props are the components' own (type-only imports, which load nothing).
const ClusterPage: Later<Parameters<typeof ClusterPageComponent>[0]> = () => import("./cluster.ts").then((m) => m.ClusterPage);
const WindowEditor: Later<Parameters<typeof WindowEditorComponent>[0]> = () => import("./editor.ts").then((m) => m.WindowEditor);
const FleetEditPage: Later<Parameters<typeof FleetEditPageComponent>[0]> = () => import("./fleet-edit.ts").then((m) => m.FleetEditPage);

interface Me {
  name: string;
  role: string;
  anonymous: boolean;
  permissions: string[];
}

interface Repo {
  commit: string;
  branch: string;
  remote: boolean;
  lastSyncError: string | null;
  lastReset: { cause: "force-push" | "unpushed"; at: string; from: string; to: string; dropped: string[]; backupRef: string } | null;
  /** The event receiver is on (fluxgate serve --cluster-keys): /fleet/status answers. */
  receiver: boolean;
}

type Route =
  | { page: "fleet" }
  | { page: "cluster"; cluster: string }
  | { page: "window"; cluster: string; name: string | null }
  | { page: "fleet-edit" }
  | { page: "fleet-window"; name: string | null };

function routeOf(hash: string): Route {
  // The fleet page keeps its view after "?" (view.ts); a label key may hold "/".
  const parts = (hash.replace(/^#\/?/, "").split("?")[0] as string)
    .split("/")
    .filter((p) => p !== "")
    .map(decodeURIComponent);
  if (parts[0] === "f") {
    if (parts[1] === "w" && parts[2] !== undefined) return { page: "fleet-window", name: parts[2] };
    if (parts[1] === "new") return { page: "fleet-window", name: null };
    return { page: "fleet-edit" };
  }
  if (parts[0] === "c" && parts[1] !== undefined) {
    if (parts[2] === "w" && parts[3] !== undefined) return { page: "window", cluster: parts[1], name: parts[3] };
    if (parts[2] === "new") return { page: "window", cluster: parts[1], name: null };
    return { page: "cluster", cluster: parts[1] };
  }
  return { page: "fleet" };
}

function SignIn(props: { message: string | null; onToken: (t: string) => void }): VNode {
  const [value, setValue] = useState("");
  return html`<form class="signin" aria-label="Sign in" onSubmit=${(e: Event) => {
    e.preventDefault();
    if (value.trim() !== "") props.onToken(value.trim());
  }}>
    <h2>Sign in</h2>
    ${props.message !== null ? html`<p class="error" role="alert">${props.message}</p>` : null}
    <label class="field"><span class="field-label">Token</span><input type="password" autocomplete="off" value=${value} onInput=${(e: Event) => setValue((e.target as HTMLInputElement).value)} /></label>
    <p class="hint">A token from <code>fluxgate serve token add</code>; <code>fluxgate serve</code> prints one when it starts.</p>
    <button type="submit" class="primary">Sign in</button>
  </form>`;
}

/** The fleet's pushed status in one line: how many clusters report, are stale or never reported, and what waits. */
function PushedSummary(props: { status: FleetPushStatus | null }): VNode | null {
  const s = props.status;
  if (s === null) return null;
  const t = s.totals;
  return html`<p data-testid="fleet-pushed">Reported by the clusters: ${t.reporting} reporting, ${t.stale} stale, ${t.never} not yet; ${t.waiting} of ${t.targets} targets waiting${t.oldestWaitingSince === null ? "" : `, the oldest since ${utcTime(t.oldestWaitingSince)}`}.</p>`;
}

function Fleet(props: { onError: (e: unknown) => void; receiver: boolean }): VNode {
  const [pushed, setPushed] = useState<FleetPushStatus | null>(null);
  const [waiting, setWaiting] = useState<FleetWaiting | null>(null);
  useEffect(() => {
    if (!props.receiver) return;
    get<FleetPushStatus>("/api/v1/fleet/status").then(setPushed).catch(props.onError);
    get<FleetWaiting>("/api/v1/fleet/waiting").then(setWaiting).catch(props.onError);
  }, [props.receiver]);
  return html`<${FleetPage} onError=${props.onError} header=${html`<${PushedSummary} status=${pushed} /><${WaitingPanel} waiting=${waiting} />`} />`;
}

/** Whether a page opens in its cluster's zone (and so is drawn again when the clusters' list comes). */
const readsZones = (route: Route): boolean => route.page === "cluster" || route.page === "window";

function App(): VNode {
  const [token, setToken] = useState<string | null>(initialToken());
  const [me, setMe] = useState<Me | null>(null);
  const [authError, setAuthError] = useState<string | null>(null);
  const [route, setRoute] = useState<Route>(routeOf(location.hash));
  const [repo, setRepo] = useState<Repo | null>(null);
  /**
   * The fleet's clusters once listed (null until then), read for a cluster's zone by the pages that open in it. Kept aside, not in state: the fleet page reads
   * the list itself, and setting state as the list came drew the whole page again in the task that brought it (a megabyte at 10,000 clusters). The pages that
   * read it are drawn again when it comes.
   */
  const listed = useRef<readonly ClusterItem[] | null>(null);
  const [, setListedCount] = useState(0);
  const zoneOf = (cluster: string): string => listed.current?.find((k) => k.name === cluster)?.timeZone ?? DEFAULT_TIME_ZONE;

  useEffect(() => {
    const onHash = (): void => {
      const pasted = tokenFromHash();
      if (pasted !== null) setToken(pasted);
      setRoute(routeOf(location.hash));
    };
    window.addEventListener("hashchange", onHash);
    // The hash may have changed between the first render and this effect.
    onHash();
    return () => window.removeEventListener("hashchange", onHash);
  }, []);

  const onError = (e: unknown): void => {
    if (e instanceof ApiError && e.status === 401) {
      setMe(null);
      setAuthError(e.message);
    } else setAuthError(e instanceof Error ? e.message : String(e));
  };

  useEffect(() => {
    setAuthError(null);
    get<Me>("/api/v1/me")
      .then((m) => {
        setMe(m);
        // Each as soon as it comes: the header's line does not wait for the clusters' list (a megabyte at 10,000 clusters), which
        // the fleet page asks for as it opens (one request serves both).
        return Promise.all([
          get<Repo>("/api/v1/repository").then(setRepo),
          listClusters().then((clusters) => {
            listed.current = clusters;
            if (readsZones(routeOf(location.hash))) setListedCount((n) => n + 1);
          }),
        ]);
      })
      .catch(onError);
  }, [token, route.page === "fleet" ? 0 : 1]);

  // A write made here (or a new commit the fleet page found): the header shows its commit at once.
  useEffect(() => onCommit((commit) => setRepo((old) => (old === null || old.commit === commit ? old : { ...old, commit }))), []);

  const signOut = (): void => {
    storeToken(null);
    setToken(null);
    setMe(null);
  };

  let main: VNode;
  if (me === null) {
    main =
      authError !== null
        ? html`<${SignIn} message=${authError} onToken=${(t: string) => {
            storeToken(t);
            setToken(t);
          }} />`
        : html`<p>Loading…</p>`;
  } else if (route.page === "fleet") {
    main = html`<${Fleet} onError=${onError} receiver=${repo?.receiver === true} />`;
  } else if (route.page === "cluster") {
    main = html`<${Lazy} key=${route.cluster} load=${ClusterPage} props=${{ cluster: route.cluster, zone: zoneOf(route.cluster), permissions: me.permissions, token }} />`;
  } else if (route.page === "fleet-edit") {
    main = html`<${Lazy} load=${FleetEditPage} props=${{ permissions: me.permissions }} />`;
  } else if (route.page === "fleet-window") {
    main = html`<${Lazy} key=${`fleet/${route.name ?? ""}`} load=${WindowEditor} props=${{ cluster: null, clusterZone: DEFAULT_TIME_ZONE, name: route.name, canWrite: me.permissions.includes("write-windows") }} />`;
  } else if (route.name === null && listed.current === null) {
    // A new window starts in its cluster's zone: wait for the clusters, or a page opened from a link would start it in UTC.
    main = html`<p>Loading…</p>`;
  } else {
    main = html`<${Lazy} key=${`${route.cluster}/${route.name ?? ""}`} load=${WindowEditor} props=${{ cluster: route.cluster, clusterZone: zoneOf(route.cluster), name: route.name, canWrite: me.permissions.includes("write-windows") }} />`;
  }

  return html`<div class="app">
    <header class="top">
      <a class="brand" href="#/">fluxgate</a>
      <nav aria-label="Main"><a href="#/">Fleet</a>${route.page === "cluster" || route.page === "window" ? html` › <a href=${`#/c/${encodeURIComponent(route.cluster)}`}>${route.cluster}</a>` : null}${route.page === "window" ? html` › ${route.name ?? "new window"}` : null}${route.page === "fleet-window" ? html` › <a href="#/f">Fleet windows and freezes</a> › ${route.name ?? "new fleet window"}` : null}
        · <a href="#/f" aria-current=${route.page === "fleet-edit" ? "page" : undefined}>Fleet windows and freezes</a></nav>
      <span class="spacer"></span>
      ${repo !== null ? html`<span class="repo" title=${repo.commit}>${repo.branch} @ <code>${repo.commit.slice(0, 12)}</code>${repo.remote ? " · origin" : " · no remote"}</span>` : null}
      <a href="/docs">API</a>
      ${me !== null ? html`<span class="who">${me.name} (${me.role})</span>${me.anonymous ? null : html`<button type="button" onClick=${signOut}>Sign out</button>`}` : null}
    </header>
    ${repo?.lastSyncError ? html`<p class="error" role="alert" data-testid="sync-banner">Could not sync with origin (the service is not ready: reads may be stale and writes fail): ${repo.lastSyncError}</p>` : null}
    ${repo?.lastReset ? html`<p class="banner" role="alert" data-testid="reset-banner">${repo.lastReset.cause === "force-push" ? "Origin's history was rewritten (a force-push)" : "The working copy held commits origin never had (a write that was not pushed)"}: at ${repo.lastReset.at} the service reset its working copy to origin's <code>${repo.lastReset.to.slice(0, 12)}</code>, dropping ${repo.lastReset.dropped.length} commit${repo.lastReset.dropped.length === 1 ? "" : "s"} (${repo.lastReset.dropped.map((c) => c.slice(0, 12)).join(", ")}). They were not pushed back; they are kept in the service's working copy under <code>${repo.lastReset.backupRef}</code>.</p>` : null}
    <main>${main}</main>
  </div>`;
}

// A sign-in link's token is taken out of the address now, as the page loads: the address may change before the first render.
tokenFromHash();
// The page's first format once the browser's locale data is loaded (locale.ts), in a task of its own. No collator is made: plain names are ordered without
// one (names.ts), and one is made only for names that need it.
void localeData.then(() => setTimeout(() => utcDay(Date.now()), 0));
// The first render in a task of its own, after the modules' evaluation: two shorter tasks on the page's thread rather than one
// long one (docs/performance-history.md, "The first render after the modules' evaluation").
setTimeout(() => render(html`<${App} />`, document.getElementById("app") as HTMLElement), 0);
