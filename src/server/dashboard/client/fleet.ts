/// <reference lib="dom" />
// The fleet page: search, label filter, grouping, range and zoom (all kept in the address), over a virtualised timeline that draws only the rows on screen.

import { html } from "htm/preact";
import type { VNode } from "preact";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { FleetClusterView } from "../../routes/fleet-clusters.ts";
import type { ClusterTimeline } from "../../views/views.ts";
import { commitSeen, FleetFetcher, get, listClusters, LOADING, nextTask, onCommit, postTask, type ClusterItem, type Loaded } from "./api.ts";
import { Axis, zoneChanges } from "./axis.ts";
import { clusterRows, heightOf, HEIGHTS, laneKeyOf, RowView, type LaneOf, type Row } from "./rows.ts";
import { sortedByName, sortedByNameNow } from "./names.ts";
import { matchesSelector, parseSelector } from "./selector.ts";
import { localeData } from "./locale.ts";
import { localTime, utcDay, warmZone } from "./time.ts";
import { bandsOf, laneBandCount, Legend, prepareLane, targetBands, trackWidthSeen, type BandInfo } from "./timeline.ts";
import { DAY, dayOf, hashOf, rangeOf, shifted, viewOf, ZOOMS, type FleetView, type Lanes, type Zoom } from "./view.ts";

/** Rows drawn above and below the screen, so scrolling and Tab find them ready. */
const OVERSCAN_PX = 600;

/**
 * The most bands newly drawn in one frame. A lane's bands are what a frame that draws it spends most on (a cluster of hourly windows has some 175 a week, a
 * frame of 10 to 25 ms of CPU): the lanes that come on the page are drawn over as many frames as their bands take, those on screen first, none long. The
 * share is sized by the frames' script and by their paint, against FRAME_SCRIPT_MS and FRAME_PAINT_MS (nextBandShare, paintedIn); this only caps it. Each
 * frame also costs a part that does not grow with its bands (the page's render, the browser's style, layout and paint, compositing, raster of the rows it
 * added to again), so fewer, fuller frames cost less in all: at 60 a quick browser's frames stopped at a few ms of script and a screen took half as many
 * frames again. The price is a larger frame: traced on a 2-core machine, while the render ran in the frame's task, up to 28 ms of CPU against 17
 * (docs/performance-history.md, "A frame's share sized by its time, not held at 60 bands"); since the render runs in a task of its own (frameScheduler), a
 * frame's render and its layout and paint are two tasks.
 */
export const BANDS_PER_FRAME = 150;

/** The fewest bands a frame draws while some are left, however slow the last frame was: the lanes always move on. */
export const BANDS_PER_FRAME_MIN = 8;

/**
 * The first frame's share: the page's first frame of lanes is its dearest (their first layout, code not yet optimised), and nothing is measured yet. The share
 * doubles from there while frames are quick.
 */
export const BANDS_FIRST_FRAME = 15;

/**
 * How long the script of a frame that draws bands aims to take (from the page's render to its commit). Each frame measures its own and sizes the next one's
 * share of bands to it, between BANDS_PER_FRAME_MIN and BANDS_PER_FRAME: on a slow or busy machine, where the same bands take several times as long, the
 * frames draw fewer, so that none grows long (docs/performance-history.md, "A frame's share of bands sized by the last frame's time; the other pages loaded
 * when opened").
 */
export const FRAME_SCRIPT_MS = 8;

/**
 * The next frame's share of bands, from this frame's: `drawn` bands (of a share of `share`) took `tookMs` of script (or, with FRAME_PAINT_MS as `aimMs`, of
 * the browser's layout and paint: paintedIn). A frame that had bands left to draw over its share, or took longer than the aim, scales its count by how far it
 * was from the aim (at most doubling); one that ran out of bands before its share, and was quick, says nothing of what a full share takes.
 */
export function nextBandShare(share: number, drawn: number, tookMs: number, aimMs: number = FRAME_SCRIPT_MS): number {
  if (drawn < share && tookMs <= aimMs) return share;
  const scaled = (drawn * aimMs) / Math.max(tookMs, 0.1);
  return Math.round(Math.max(BANDS_PER_FRAME_MIN, Math.min(BANDS_PER_FRAME, 2 * drawn, scaled)));
}

/**
 * How long the browser's task of a frame that lays out and paints bands aims to take (from the frame's callbacks to the render it posts). Longer than the
 * script's aim: the task has a part that does not grow with the bands (some 5 ms of CPU on a 2-core machine, traced, with a few bands).
 */
export const FRAME_PAINT_MS = 12;

/**
 * The bands of the fleet page's frames: how many the frame has drawn of its share (`spent`, of `share`), whether lanes are still drawing (`more`), and how many
 * the last render drew that the browser has not laid out and painted yet, of what share (`painting`, `paintingShare`: the next frame's task does, and its
 * time sizes the share too, paintedIn).
 */
export interface BandBudget {
  spent: number;
  share: number;
  more: boolean;
  painting: number;
  paintingShare: number;
}

/**
 * The frame's task took `frameMs` (from its callbacks to the render it posted: the browser's style, layout and paint of what the last render drew, in one
 * task): the bands that render drew (`painting`, of a share of `paintingShare`) size the share too, as its script did (nextBandShare, against
 * FRAME_PAINT_MS), and the share is the smaller of the two. A frame's script and its paint are two tasks, and each grows with the bands: sized by the script
 * alone, a frame that painted 150 bands took up to 18.8 ms of CPU, traced on a 2-core machine (docs/performance-history.md, "The page's largest tasks made
 * smaller").
 */
export function paintedIn(budget: BandBudget, frameMs: number): void {
  const { painting, paintingShare } = budget;
  budget.painting = 0;
  // A render that ran out of bands before its share, painted quickly, says nothing of what a whole share's paint takes.
  if (painting === 0 || (painting < paintingShare && frameMs <= FRAME_PAINT_MS)) return;
  budget.share = Math.min(budget.share, nextBandShare(paintingShare, painting, frameMs, FRAME_PAINT_MS));
}

/**
 * The longest a frame may come after a render, in milliseconds, and still be the one that lays out and paints what the render drew: a frame later than that
 * (the page asked for none until a scroll or an answer, long after) says nothing of those bands, which an earlier frame painted.
 */
const NEXT_FRAME_MS = 50;

/**
 * The fleet page's next frame, asked for by whatever has something to draw: one animation frame at a time, which draws the page once if anything asked it to
 * (`draw`) or lanes are still drawing (`budget.more`), with the count of bands started again (`budget.spent`). `count` asks for the frame without a render
 * of its own. Only this frame's render draws bands: the page's other renders (a scroll's, in an animation frame callback of its own, which runs before this
 * render; an answer's effect's, between frames) find the last render's share spent (`shareSpent`) and draw none; they ask for the next frame, which draws
 * them.
 *
 * The frame's render runs in a task of its own, posted (`post`) from the frame's callback, not in the callback: the callback runs in the browser's task
 * that then lays out and paints the frame, so a render in it made one task of the page's script and the browser's style, layout and paint of the render
 * before (11.8–22.7 ms of CPU for a load's largest, traced on a 2-core machine: docs/performance-history.md, "A frame's render in a task of its own").
 * Posted, the render's changes are laid out and painted in the next frame's task, and each task holds one of the two. Asks that come between the frame and
 * its render are served by that render, and no other frame is asked for until it has run.
 */
export function frameScheduler(
  budget: BandBudget,
  render: () => void,
  post: (run: () => void) => void = postTask,
  clock: () => number = () => performance.now(),
): { draw: () => void; count: () => void; cancel: () => void } {
  let frame = 0;
  let asked = false;
  // When the frame's callback ran: its task's time, to the posted render, sizes the share (paintedIn); and when the last render ran, whose bands the next
  // frame paints.
  let frameAt = 0;
  let renderedAt = -Infinity;
  // A render posted and not yet run (the frame asks for no other until it has), and whether the page has gone since.
  let posted = false;
  let gone = false;
  const draw = (): void => {
    posted = false;
    if (gone) return;
    asked = false;
    if (frameAt - renderedAt <= NEXT_FRAME_MS) paintedIn(budget, clock() - frameAt);
    else budget.painting = 0;
    budget.spent = 0;
    render();
    renderedAt = clock();
  };
  const run = (): void => {
    frame = 0;
    if (!(asked || budget.more)) return;
    frameAt = clock();
    posted = true;
    post(draw);
  };
  const count = (): void => {
    if (frame === 0 && !posted && !gone) frame = requestAnimationFrame(run);
  };
  return {
    draw: () => {
      asked = true;
      count();
    },
    count,
    cancel: () => {
      cancelAnimationFrame(frame);
      frame = 0;
      gone = true;
    },
  };
}

/**
 * A render of the page was committed: whatever it left of the frame's share is spent, so that no render but the next frame's own (a scroll's, whose callback
 * runs before the render the frame posts; an effect's) draws bands: a frame's share is drawn by its own render, or a frame could lay out the rest of the
 * last one's share with a whole share of its own.
 */
export function shareSpent(budget: BandBudget): void {
  budget.spent = Math.max(budget.spent, budget.share);
}

/** How often the page asks for the repository's commit: when it changed, what is shown is asked for again. */
const COMMIT_CHECK_MS = 15_000;

type Selector = ReturnType<typeof parseSelector>;

/** Reads the selector box: the selector, or why it cannot be read. */
function readSelector(text: string): { selector: Selector | null; error: string | null } {
  try {
    return { selector: parseSelector(text, "selector"), error: null };
  } catch (e) {
    return { selector: null, error: e instanceof Error ? e.message : String(e) };
  }
}

/** The fleet's clusters sorted by name, and the label keys they have (for grouping). */
interface Fleet {
  clusters: readonly ClusterItem[];
  keys: string[];
}

/**
 * Every cluster of the fleet, sorted by name, and their label keys: read, sorted and handed over in tasks of their own (10,000 clusters are a megabyte of
 * JSON and a sort), so each view filters a list already in order. While the list is on its way, the local date format of the first render is made in a task
 * of its own, once the locale data it needs is loaded (locale.ts): made before, it loaded the data again on the page's thread, a task of 10 to 15 ms. A list
 * that comes first does not wait for the data: the format is made then, as it was before the worker.
 */
async function sortedClusters(): Promise<Fleet> {
  const listed = listClusters();
  // Its failure is the caller's, once it is awaited below.
  const settled = listed.then(
    () => undefined,
    () => undefined,
  );
  await Promise.race([localeData, settled]);
  await nextTask();
  localTime(Date.now(), "UTC");
  const got = await listed;
  await nextTask();
  const list = await sortedByName(got, (k) => k.name, nextTask);
  await nextTask();
  const found = new Set<string>();
  for (const k of list) for (const key in k.labels) found.add(key);
  const keys = [...found].sort();
  await nextTask();
  return { clusters: list, keys };
}

/** Zones (and ranges) whose formats are made, or being made. */
const warmed = new Set<string>();

/**
 * Makes the formats of the zones not made yet, and their changes over the range (a cluster's head shows them), a zone a task: run while the timelines of
 * their clusters are on their way.
 */
async function warmZones(zones: Iterable<string>, from: number, to: number): Promise<void> {
  for (const zone of zones) {
    const key = `${zone}|${from}|${to}`;
    if (warmed.has(key)) continue;
    warmed.add(key);
    await nextTask();
    try {
      warmZone(zone, Date.now());
      zoneChanges(zone, from, to);
    } catch {
      // A zone the browser does not know: its lanes say so when they are drawn.
    }
  }
}

/** The clusters a view shows, in groups (one unnamed group when it groups by nothing), in the order of `clusters` (by name). */
export function groupsOf(clusters: readonly ClusterItem[], view: FleetView, selector: Selector): Array<{ label: string; clusters: ClusterItem[] }> {
  const search = view.search.trim().toLowerCase();
  const everything = search === "" && Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
  // Filtering keeps the order: the list is sorted once, as it comes (sortedClusters).
  const shown = everything
    ? [...clusters]
    : clusters.filter((k) => (search === "" || k.name.toLowerCase().includes(search)) && matchesSelector(selector, k.labels));
  if (view.group === "") return [{ label: "", clusters: shown }];
  const groups = new Map<string, ClusterItem[]>();
  for (const k of shown) {
    const value = k.labels[view.group];
    const label = value === undefined ? `no ${view.group} label` : `${view.group}=${value}`;
    // Pushed, not copied: copying the group for each cluster made grouping 10,000 clusters quadratic.
    const group = groups.get(label);
    if (group === undefined) groups.set(label, [k]);
    else group.push(k);
  }
  // By value, the clusters without the label last.
  const missing = `no ${view.group} label`;
  const valued = [...groups.entries()].filter(([label]) => label !== missing);
  const sorted = sortedByNameNow(valued, ([label]) => label.slice(view.group.length + 1));
  const without = groups.get(missing);
  if (without !== undefined) sorted.push([missing, without]);
  return sorted.map(([label, list]) => ({ label, clusters: list }));
}

/** The chosen band of the view, found in its cluster's timeline once that is loaded. */
function chosenBand(view: FleetView, timeline: Loaded<ClusterTimeline>): { band: BandInfo; lane: string } | null {
  if (view.cluster === "" || view.band === "" || timeline.state !== "done") return null;
  const at = view.band.lastIndexOf("@");
  const laneKey = view.band.slice(0, at);
  const start = view.band.slice(at + 1);
  const t = timeline.value;
  const lanes: LaneOf[] = [
    ...t.targets.map((target): LaneOf => ({ type: "target", target })),
    ...t.windows.map((window): LaneOf => ({ type: "window", window })),
  ];
  const lane = lanes.find((l) => laneKeyOf(l) === laneKey);
  if (lane === undefined) return null;
  const bands = lane.type === "target" ? targetBands(t.cluster, t.timeZone, lane.target) : bandsOf(t.cluster, t.timeZone, lane.window);
  const band = bands.find((b) => b.start === start);
  return band === undefined ? null : { band, lane: laneKey };
}

type GroupRow = Extract<Row, { kind: "group" }>;

/** A block of the list: a group's head, or a cluster and its rows. */
type Block = GroupRow | ClusterItem;

const isGroup = (block: Block): block is GroupRow => (block as GroupRow).kind === "group";

/** The list's blocks in order, and where a group or a cluster is (found when asked: a focused row, a cluster to scroll to). */
interface Blocks {
  list: readonly Block[];
  /** Where the groups' heads are, in order (none without grouping). */
  heads: readonly number[];
  indexOf: (which: { group: string } | { cluster: string }) => number | undefined;
}

/** A row on the page: its index in the whole list, and its top in pixels. */
interface Placed {
  index: number;
  row: Row;
  top: number;
}

/**
 * The list laid out by block: each block's top and first row's index (the last entry of each is
 * the list's height and row count). A cluster's rows are made only when they are drawn or loaded:
 * a cluster still loading takes the height of the typical lanes, counted, not made, so laying out
 * 10,000 clusters is a loop of additions.
 */
interface Layout {
  tops: Float64Array;
  starts: Int32Array;
  rowsOf: (block: number) => readonly Row[];
}

/** The first block whose bottom is below `y` (blocks.length when none). */
function blockBelow(tops: Float64Array, y: number): number {
  let lo = 0;
  let hi = tops.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((tops[mid + 1] as number) <= y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The rows of blocks `b` on, placed, from the first whose bottom is below `first` while their top is above `last`. */
function placedRows(layout: Layout, b: number, first: number, last: number, out: Placed[]): void {
  const n = layout.tops.length - 1;
  for (; b < n && (layout.tops[b] as number) < last; b++) {
    let top = layout.tops[b] as number;
    const rows = layout.rowsOf(b);
    for (let i = 0; i < rows.length && top < last; i++) {
      const row = rows[i] as Row;
      const height = heightOf(row);
      if (top + height > first) out.push({ index: (layout.starts[b] as number) + i, row, top });
      top += height;
    }
  }
}

/** The row whose top is `top` (to the pixel), or null. */
function rowAt(layout: Layout, top: number): Placed | null {
  const found: Placed[] = [];
  placedRows(layout, blockBelow(layout.tops, top), top, top + 1, found);
  return found.find((p) => Math.abs(p.top - top) < 1) ?? null;
}

/** The button of a band on the page: its cluster's lane (`target:KIND/NAMESPACE/NAME` or `window:NAME`) and its start. */
function bandElement(cluster: string, lane: string, start: string): HTMLElement | null {
  const [type, id] = [lane.slice(0, lane.indexOf(":")), lane.slice(lane.indexOf(":") + 1)];
  const laneSelector = type === "target" ? `[data-target="${CSS.escape(id)}"]` : `[data-window="${CSS.escape(id)}"]`;
  return document.querySelector<HTMLElement>(`.vrow[data-cluster="${CSS.escape(cluster)}"] ${laneSelector} .band[data-start="${CSS.escape(start)}"]`);
}

/** The page's scroll position and height, updated once a frame while scrolling. */
function useViewport(): { scrollY: number; height: number } {
  // Read once, as the page mounts (a value, not a function, would read them at every render: scrollY lays the page out, in the middle of its render).
  const [viewport, setViewport] = useState(() => ({ scrollY: window.scrollY, height: window.innerHeight }));
  useEffect(() => {
    let frame = 0;
    const update = (): void => {
      if (frame !== 0) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        setViewport({ scrollY: window.scrollY, height: window.innerHeight });
      });
    };
    window.addEventListener("scroll", update, { passive: true });
    window.addEventListener("resize", update);
    return () => {
      window.removeEventListener("scroll", update);
      window.removeEventListener("resize", update);
      cancelAnimationFrame(frame);
    };
  }, []);
  return viewport;
}

function Toolbar(props: {
  view: FleetView;
  set: (change: Partial<FleetView>) => void;
  keys: string[];
  selectorError: string | null;
  shown: number;
  /** The fleet's clusters; null while the list is on its way. */
  total: number | null;
  waiting: number;
}): VNode {
  const { view, set } = props;
  const { from, to } = rangeOf(view);
  const input = (e: Event): string => (e.target as HTMLInputElement).value;
  return html`<form class="toolbar" aria-label="Fleet view" onSubmit=${(e: Event) => e.preventDefault()}>
    <label class="field"><span class="field-label">Search by name</span><input type="search" data-testid="search" value=${view.search} onInput=${(e: Event) => set({ search: input(e) })} /></label>
    <label class="field"><span class="field-label">Labels (selector)</span>
      <input data-testid="selector" placeholder="ring=prod,region in (eu,us)" value=${view.selector} aria-invalid=${props.selectorError !== null} aria-describedby="selector-error" onInput=${(e: Event) => set({ selector: input(e) })} />
    </label>
    <label class="field"><span class="field-label">Group by label</span>
      <select data-testid="group" value=${view.group} onChange=${(e: Event) => set({ group: input(e) })}><option value="">none</option>${props.keys.map((k) => html`<option value=${k}>${k}</option>`)}</select></label>
    <label class="field"><span class="field-label">Lanes</span>
      <select data-testid="lanes" value=${view.lanes} onChange=${(e: Event) => set({ lanes: input(e) as Lanes })}><option value="targets">targets (what each will do)</option><option value="windows">windows</option><option value="all">targets and windows</option></select></label>
    <label class="field"><span class="field-label">Zoom</span>
      <select data-testid="zoom" value=${view.zoom} onChange=${(e: Event) => set({ zoom: input(e) as Zoom, band: "" })}>${Object.entries(ZOOMS).map(([z, days]) => html`<option value=${z}>${z} (${days} day${days === 1 ? "" : "s"})</option>`)}</select></label>
    <span class="field range">
      <span class="field-label">Range</span>
      <span>
        <button type="button" onClick=${() => set(shifted(view, -1))} aria-label="Earlier">◀</button>
        <button type="button" onClick=${() => set({ from: dayOf(Date.now()), band: "" })}>Today</button>
        <button type="button" onClick=${() => set(shifted(view, 1))} aria-label="Later">▶</button>
      </span>
    </span>
    <label class="field"><span class="field-label">Jump to date</span><input type="date" data-testid="jump" value=${view.from} onChange=${(e: Event) => input(e) !== "" && set({ from: input(e), band: "" })} /></label>
    <p class="toolbar-problem">${props.selectorError !== null ? html`<span class="field-error fit" id="selector-error" role="alert" title=${props.selectorError}>${props.selectorError}</span>` : null}</p>
    <p class="count" role="status" data-testid="count">${props.total === null ? "Loading the fleet…" : `${props.shown} of ${props.total} clusters`} · ${utcDay(from)} to ${utcDay(to - DAY)} (UTC)${props.waiting > 0 ? ` · the service asked to slow down: asking again in ${props.waiting}s` : ""}</p>
  </form>`;
}

/** The fleet page. */
export function FleetPage(props: { onError: (e: unknown) => void; header: VNode | null }): VNode {
  const [view, setViewState] = useState<FleetView>(() => viewOf(location.hash, Date.now()));
  const firstHash = useRef(location.hash);
  const [fleet, setFleet] = useState<Fleet | null>(null);
  const clusters = fleet?.clusters ?? null;
  // The list has come and is drawn.
  const drawn = clusters !== null;
  const [, setTick] = useState(0);
  const [waiting, setWaiting] = useState(0);
  // Commits seen since the page was opened: each asks again for the clusters on screen.
  const [refreshes, setRefreshes] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const listRef = useRef<HTMLDivElement | null>(null);
  // The key of the row that holds the focus and its block (a group's label or a cluster's name), kept drawn when it scrolls away.
  const focused = useRef<{ key: string; block: { group: string } | { cluster: string } } | null>(null);
  // Opened from a link naming a cluster: scroll to it (until its own rows are loaded, as rows above it take their real heights).
  const follow = useRef<boolean | null>(null);
  if (follow.current === null) follow.current = view.cluster !== "";
  const typical = useRef(1);
  const lastSelector = useRef<Selector>(parseSelector(""));
  const viewport = useViewport();
  // While the list is on its way the page's frame is drawn, a task after the page's first render: its toolbar, then, in the task after the frame that laid
  // the toolbar out, its legend and axis (`framed`: 0, 1, 2). The list's first drawing, in the task the list comes in, then makes only its rows; drawn at once,
  // the toolbar (its date field's calendar icon an SVG document of its own), legend and axis made one frame of 11 to 18 ms of CPU, traced on a 2-core
  // machine (docs/performance-history.md, "The page's largest tasks made smaller"). The list is placed once drawn; its first drawing holds only the rows on
  // screen.
  const [framed, setFramed] = useState(0);
  useEffect(() => {
    // A list that came first (a small fleet, a near service) was drawn with the frame: nothing more to draw.
    if (drawn || framed === 2) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The toolbar a task after the first render; the rest a task after the frame that lays the toolbar out.
    const frame = framed === 0 ? 0 : requestAnimationFrame(() => (timer = setTimeout(() => setFramed(2), 0)));
    if (framed === 0) timer = setTimeout(() => setFramed(1), 0);
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [drawn, framed]);
  const listPlaced = useRef(false);
  // The bands the last render drew of its frame's share, and the share: spent in full once a render is committed, counted from 0 again by the render the next
  // frame that draws posts (frameScheduler), which draws the lanes still drawing.
  const bandBudget = useRef<BandBudget>({ spent: 0, more: false, share: BANDS_FIRST_FRAME, painting: 0, paintingShare: 0 });
  // The page is drawn at most once a frame: answers that came, lanes still drawing and the list's placement each ask for the next frame, and one render serves
  // them all (two renders in one frame made the load's longest tasks).
  const nextFrame = useMemo(() => frameScheduler(bandBudget.current, () => setTick((t) => t + 1)), []);
  useEffect(() => nextFrame.cancel, [nextFrame]);
  // When this render began: a render that drew bands measures its script up to its commit (below), and sizes the next frame's share by it.
  const renderStart = performance.now();
  const bandsDrawn = useRef(new Map<string, number | null>());

  // Answers (and retries) counted: the rows are laid out again only when one came, not when the page scrolls.
  const answers = useRef(0);
  // Makes an answered cluster's bands and their descriptions, in the task that brought it, for the frame that draws them (set as the view is drawn).
  const prepare = useRef<(cluster: string) => void>(() => undefined);
  // Answers come one by one: they are drawn together, once a frame.
  const fetcher = useMemo(() => {
    const redraw = (cluster: string): void => {
      answers.current++;
      prepare.current(cluster);
      nextFrame.draw();
    };
    return new FleetFetcher(redraw, (seconds) => {
      setWaiting(seconds);
      setTimeout(() => setWaiting(0), seconds * 1000);
    });
  }, []);

  // Asked for as the page is first drawn, not in an effect: the header asks for the same list as the page opens, and one request serves both while it is on
  // its way. Its failure is handled in the effect below.
  const [listing] = useState(() => {
    const asked = sortedClusters();
    asked.catch(() => undefined);
    return asked;
  });
  useEffect(() => {
    listing.then(setFleet).catch(props.onError);
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    const onHash = (): void => {
      const next = viewOf(location.hash, Date.now());
      follow.current = next.cluster !== "";
      setViewState(next);
    };
    window.addEventListener("hashchange", onHash);
    // The address may have changed between the first render and this effect, with no listener to hear it.
    if (location.hash !== firstHash.current) onHash();
    return () => {
      clearInterval(timer);
      window.removeEventListener("hashchange", onHash);
    };
  }, []);

  // A new commit (an edit here, another person's, a sync with origin): the cluster list and what is on screen are asked for again; only what changed is drawn
  // again.
  // A write made on this page (a cluster's patch of a fleet window) is such a commit, known at once from its answer.
  useEffect(() => {
    let commit: string | null = null;
    const changed = (next: string): void => {
      if (commit !== null && next !== commit) {
        fetcher.refresh();
        sortedClusters()
          .then((next) => setFleet((old) => (old !== null && JSON.stringify(old.clusters) === JSON.stringify(next.clusters) ? old : next)))
          .catch(props.onError);
        setRefreshes((n) => n + 1);
      }
      commit = next;
    };
    const check = (): void => {
      if (document.hidden) return;
      get<{ commit: string }>("/api/v1/repository")
        .then((repository) => {
          changed(repository.commit);
          // The header shows it too.
          commitSeen(repository.commit);
        })
        .catch(() => undefined);
    };
    check();
    const stop = onCommit(changed);
    const timer = setInterval(check, COMMIT_CHECK_MS);
    return () => {
      stop();
      clearInterval(timer);
    };
  }, [fetcher]);

  const set = useCallback((change: Partial<FleetView>): void => {
    setViewState((old) => {
      const next = { ...old, ...change };
      history.replaceState(null, "", `${location.pathname}${location.search}${hashOf(next, Date.now())}`);
      return next;
    });
  }, []);
  const onChoose = useCallback((b: BandInfo, lane: string) => set({ cluster: b.cluster, band: `${lane}@${b.start}` }), [set]);
  // Closing the details (Close or Escape) gives the focus back to the band they were about, so a keyboard user is where they were.
  const onClose = useCallback(() => {
    const held = chosenRef.current;
    set({ band: "" });
    if (held !== null) requestAnimationFrame(() => bandElement(held.band.cluster, held.lane, held.band.start)?.focus());
  }, [set]);
  // The chosen band, for the toggle: hiding the window lanes of a cluster whose chosen band is on one also forgets that band.
  const chosenRef = useRef<{ band: BandInfo; lane: string } | null>(null);
  const onToggle = useCallback(
    (cluster: string) => {
      const held = chosenRef.current;
      if (held !== null && held.band.cluster === cluster && held.lane.startsWith("window:")) {
        set({ band: "" });
        setExpanded((old) => new Set([...old].filter((c) => c !== cluster)));
        return;
      }
      setExpanded((old) => {
        const next = new Set(old);
        if (!next.delete(cluster)) next.add(cluster);
        return next;
      });
    },
    [set],
  );
  const onRetry = useCallback(
    (cluster: string) => {
      fetcher.retry(cluster);
      answers.current++;
      setTick((t) => t + 1);
    },
    [fetcher],
  );

  const { from, to } = rangeOf(view);
  prepare.current = (cluster: string): void => {
    const timeline = fetcher.timeline<ClusterTimeline>(cluster, from, to);
    if (timeline.state !== "done") return;
    const t = timeline.value;
    if (view.lanes !== "windows") for (const target of t.targets) prepareLane(cluster, t.timeZone, { target });
    if (view.lanes !== "targets") for (const window of t.windows) prepareLane(cluster, t.timeZone, { window });
  };
  // Read once per text: a new selector object every render would filter and sort the whole fleet again every render.
  const read = useMemo(() => readSelector(view.selector), [view.selector]);
  // A selector that cannot be read changes nothing: the last one that could goes on filtering.
  if (read.selector !== null) lastSelector.current = read.selector;
  const groups = useMemo(
    () => (clusters === null ? [] : groupsOf(clusters, view, lastSelector.current)),
    [clusters, view.search, view.group, lastSelector.current],
  );

  // Rows: a cluster's rows are made again only when its timeline or options changed, so they stay the same objects (and are not drawn again).
  const cache = useRef(new Map<string, { timeline: Loaded<ClusterTimeline>; options: string; rows: Row[]; height: number }>());
  // Clusters still loading get as many lanes as the last one loaded had, so the page moves little as they come.
  const estimate = typical.current;
  const chosenTimeline = fetcher.timeline<ClusterTimeline>(view.cluster, from, to);
  const chosen = useMemo(() => chosenBand(view, chosenTimeline), [view.cluster, view.band, chosenTimeline]);
  chosenRef.current = chosen;
  // The list's blocks in order: the groups' heads and clusters, made again when the groups change (with no grouping, the one group's list as it is).
  const blocks = useMemo((): Blocks => {
    let list: Block[];
    const heads: number[] = [];
    if (view.group === "") list = groups[0]?.clusters ?? [];
    else {
      list = [];
      for (const g of groups) {
        heads.push(list.length);
        list.push({ kind: "group", key: `g:${g.label}`, label: g.label, count: g.clusters.length });
        for (const k of g.clusters) list.push(k);
      }
    }
    let clusterAt: Map<string, number> | null = null;
    let groupAt: Map<string, number> | null = null;
    const indexOf = (which: { group: string } | { cluster: string }): number | undefined => {
      if (clusterAt === null || groupAt === null) {
        clusterAt = new Map();
        groupAt = new Map();
        for (const [i, block] of list.entries()) {
          if (isGroup(block)) groupAt.set(block.label, i);
          else clusterAt.set(block.name, i);
        }
      }
      return "group" in which ? groupAt.get(which.group) : clusterAt.get(which.cluster);
    };
    return { list, heads, indexOf };
  }, [groups, view.group]);
  // Where each block goes: a walk over every cluster, so made again only when what they show changed (an answer, the view, the opened lanes); scrolling only
  // looks them up.
  const layout = useMemo((): Layout => {
    const n = blocks.list.length;
    const tops = new Float64Array(n + 1);
    const starts = new Int32Array(n + 1);
    // Each cluster's timeline as laid out (none: loading): its rows are made from it when drawn, whatever came since.
    const known = fetcher.timelines<ClusterTimeline>(from, to);
    const seen = new Map<number, Loaded<ClusterTimeline>>();
    const made = (k: ClusterItem, timeline: Loaded<ClusterTimeline>): { rows: Row[]; height: number } => {
      const open = expanded.has(k.name) || (chosen !== null && chosen.band.cluster === k.name && chosen.lane.startsWith("window:"));
      const chosenLane = chosen !== null && chosen.band.cluster === k.name ? chosen.lane : null;
      const options = { targets: view.lanes !== "windows", windows: view.lanes !== "targets", expanded: open, estimate, chosenLane };
      // The typical lane count shapes only the rows of a cluster still loading.
      const optionsKey = `${options.targets}|${options.windows}|${open}|${timeline.state === "loading" ? estimate : ""}|${chosenLane ?? ""}`;
      const cached = cache.current.get(k.name);
      if (cached !== undefined && cached.timeline === timeline && cached.options === optionsKey) return cached;
      const rows = clusterRows(k, timeline, options);
      const entry = { timeline, options: optionsKey, rows, height: rows.reduce((h, r) => h + heightOf(r), 0) };
      cache.current.set(k.name, entry);
      return entry;
    };
    // Laid out one by one: the groups' heads and the clusters whose timeline came (found by name: a screen or a few); the clusters between them, still
    // loading, in runs, each a head and the typical lanes' notes (clusterRows), counted without making them. 10,000 clusters are a loop of additions, with
    // no look-up.
    const placed = [...blocks.heads];
    for (const [name, timeline] of known) {
      if (timeline.state === "loading") continue;
      const b = blocks.indexOf({ cluster: name });
      if (b !== undefined) placed.push(b);
    }
    placed.sort((a, b) => a - b);
    const loadingHeight = HEIGHTS.head + estimate * HEIGHTS.note;
    const loadingRows = 1 + estimate;
    let top = 0;
    let start = 0;
    let b = 0;
    const loadingUntil = (end: number): void => {
      for (; b < end; b++) {
        tops[b] = top;
        starts[b] = start;
        top += loadingHeight;
        start += loadingRows;
      }
    };
    for (const at of placed) {
      loadingUntil(at);
      tops[at] = top;
      starts[at] = start;
      b = at + 1;
      const block = blocks.list[at] as Block;
      if (isGroup(block)) {
        top += HEIGHTS.group;
        start += 1;
        continue;
      }
      const timeline = known.get(block.name) as Loaded<ClusterTimeline>;
      seen.set(at, timeline);
      const { rows, height } = made(block, timeline);
      if (timeline.state === "done") typical.current = Math.max(1, rows.filter((r) => r.kind === "lane" || r.kind === "note").length);
      top += height;
      start += rows.length;
    }
    loadingUntil(n);
    tops[n] = top;
    starts[n] = start;
    const rowsOf = (b: number): readonly Row[] => {
      const block = blocks.list[b] as Block;
      return isGroup(block) ? [block] : made(block, seen.get(b) ?? LOADING).rows;
    };
    return { tops, starts, rowsOf };
  }, [blocks, from, to, view.lanes, expanded, chosen, estimate, answers.current]);
  const total = layout.tops[blocks.list.length] as number;

  // A screen's clusters come in one answer: when it changed the typical lane count, the clusters still loading are laid out again with it.
  const typicalNow = typical.current;
  useEffect(() => {
    if (typicalNow !== estimate) setTick((t) => t + 1);
  }, [typicalNow, estimate]);

  // Which rows are on screen.
  // Read once the list is placed (its first drawing counts from the top of the page, as the list may move as it comes), so that no render before it lays out
  // the page (the header's answers come while the list is on its way).
  const listTop = listRef.current === null || !listPlaced.current ? 0 : listRef.current.getBoundingClientRect().top + viewport.scrollY;
  const first = Math.max(0, viewport.scrollY - listTop - OVERSCAN_PX);
  const last = viewport.scrollY - listTop + viewport.height + OVERSCAN_PX;
  const visible: Placed[] = [];
  placedRows(layout, blockBelow(layout.tops, first), first, last, visible);
  const visibleClusters = [
    ...new Set(
      visible
        .map((p) => p.row)
        .filter((r) => r.kind !== "group")
        .map((r) => r.cluster.name),
    ),
  ];
  // The row holding the focus stays drawn wherever the page scrolls (in its place in the list, so Tab goes on from it): removing it would drop the focus to the
  // page's start.
  const held = focused.current;
  const heldBlock = held === null ? undefined : blocks.indexOf(held.block);
  if (held !== null && heldBlock !== undefined) {
    const placed: Placed[] = [];
    placedRows(layout, heldBlock, layout.tops[heldBlock] as number, layout.tops[heldBlock + 1] as number, placed);
    const row = placed.find((p) => p.row.key === held.key);
    if (row !== undefined && !visible.some((p) => p.index === row.index)) {
      visible.push(row);
      visible.sort((a, b) => a.index - b.index);
    }
  }
  // Lanes that came on the page get their bands over several frames, a share a frame (nextBandShare), those on screen first; their clusters count as
  // loading until all are drawn. By row key: how many bands each lane on the page has drawn (null: all).
  const screenTop = viewport.scrollY - listTop;
  const budget = bandBudget.current;
  const spentBefore = budget.spent;
  const before = bandsDrawn.current;
  const drawnNow = new Map<string, number | null>();
  const drawing = new Set<string>();
  const onScreen = (p: Placed): boolean => p.top < screenTop + viewport.height && p.top + heightOf(p.row) > screenTop;
  for (const p of [...visible.filter(onScreen), ...visible.filter((p) => !onScreen(p))]) {
    const r = p.row;
    if (r.kind !== "lane") continue;
    const was = before.get(r.key);
    if (was === null) {
      drawnNow.set(r.key, null);
      continue;
    }
    const total = laneBandCount(r.cluster.name, r.cluster.timeZone, r.lane.type === "target" ? { target: r.lane.target } : { window: r.lane.window });
    const take = Math.min(total - (was ?? 0), Math.max(0, budget.share - budget.spent));
    budget.spent += take;
    if ((was ?? 0) + take >= total) drawnNow.set(r.key, null);
    else {
      drawnNow.set(r.key, (was ?? 0) + take);
      drawing.add(r.cluster.name);
    }
  }
  bandsDrawn.current = drawnNow;
  budget.more = drawing.size > 0;
  // The first render of a frame that drew bands measures its script, up to its commit, for the next frame's share; the next frame measures their paint.
  const drewNow = spentBefore === 0 ? budget.spent : 0;
  useLayoutEffect(() => {
    if (drewNow > 0) {
      budget.painting = drewNow;
      budget.paintingShare = budget.share;
      budget.share = nextBandShare(budget.share, drewNow, performance.now() - renderStart);
    }
    shareSpent(budget);
  });
  if (budget.more) nextFrame.count();
  // The page's first drawing of the list holds only the rows on screen: its first layout is the load's longest task. The rows around the screen follow a
  // frame later (the effect that sees the list drawn); their clusters are asked for with the screen's, in one request.
  const drawnRows = listPlaced.current ? visible : visible.filter(onScreen);
  const onFocusIn = (e: FocusEvent): void => {
    const row = (e.target as Element).closest(".vrow");
    if (row === null || listRef.current === null) return;
    // A row's top in the list is where it was laid out, and tops only grow: that finds it.
    const top = row.getBoundingClientRect().top - listRef.current.getBoundingClientRect().top;
    const placed = rowAt(layout, top);
    focused.current =
      placed === null ? null : { key: placed.row.key, block: placed.row.kind === "group" ? { group: placed.row.label } : { cluster: placed.row.cluster.name } };
  };
  const onFocusOut = (): void => {
    // Once the focus has settled: still in the list (moved to another row, or the window lost it) keeps the row; elsewhere lets it go.
    setTimeout(() => {
      if (listRef.current !== null && !listRef.current.contains(document.activeElement)) focused.current = null;
    }, 0);
  };
  const onKeyDown = (e: KeyboardEvent): void => {
    if (e.key === "Escape" && view.band !== "") {
      e.preventDefault();
      onClose();
    }
  };
  const loading = visibleClusters.filter((c) => drawing.has(c) || fetcher.timeline(c, from, to).state === "loading").length;
  const wantKey = `${visibleClusters.join(",")}|${from}|${to}|${refreshes}`;
  useEffect(() => {
    fetcher.want(visibleClusters, from, to);
    // While their timelines are on their way, the formats of their zones are made, so the frames drawing them do not.
    void warmZones(new Set(visible.flatMap((p) => (p.row.kind === "group" ? [] : [p.row.cluster.timeZone]))), from, to);
  }, [wantKey]);

  // A link to a cluster scrolls to it; again as the rows above it take their real heights, until its own timeline is there.
  const chosenLoaded = chosenTimeline.state !== "loading";
  useEffect(() => {
    if (!follow.current || view.cluster === "" || listRef.current === null) return;
    const index = blocks.indexOf({ cluster: view.cluster });
    if (index === undefined) return;
    // Done once its timeline is there and the clusters still loading above it have their typical height (the answer that brought it may change that, a render
    // later).
    if (chosenLoaded && typicalNow === estimate) follow.current = false;
    const axis = document.querySelector(".fleet-grid .axis")?.getBoundingClientRect().height ?? 0;
    window.scrollTo(0, listRef.current.getBoundingClientRect().top + window.scrollY + (layout.tops[index] as number) - axis);
  }, [view.cluster, total, chosenLoaded, estimate]);

  // The lanes are as wide as the axis's days: known before the first lane is drawn, the lanes are drawn once, at their width, not again once measured.
  // Measured once the list is drawn, not when the frame is: an effect runs before the component's next render, and the header's answers would make it lay out
  // the frame just drawn in their own task.
  useEffect(() => {
    if (!drawn) return;
    const days = document.querySelector<HTMLElement>(".fleet-grid .axis .days");
    if (days !== null) trackWidthSeen(days.clientWidth);
    // The list is placed now: the next frame draws the rows around the screen too.
    listPlaced.current = true;
    nextFrame.draw();
  }, [drawn]);

  if (!drawn && framed === 0) return html`<p>Loading the fleet…</p>`;
  const shown = groups.reduce((n, g) => n + g.clusters.length, 0);
  const toolbar = html`<${Toolbar} view=${view} set=${set} keys=${fleet?.keys ?? []} selectorError=${read.error} shown=${shown} total=${clusters?.length ?? null} waiting=${waiting} />`;
  if (!drawn && framed === 1) return html`<div class="fleet"><h2>Fleet</h2>${props.header}${toolbar}</div>`;
  return html`<div class="fleet">
    <h2>Fleet</h2>
    ${props.header}
    ${toolbar}
    <${Legend} />
    <p class="hint">Choose a band (click, or Tab to it and press Enter) to see its exact times under it.</p>
    <div class="fleet-grid" role="table" aria-label=${`Fleet timeline, ${ZOOMS[view.zoom]} day${ZOOMS[view.zoom] === 1 ? "" : "s"} from ${view.from}`} aria-rowcount=${layout.starts[blocks.list.length]} aria-busy=${clusters === null || loading > 0} data-loading=${clusters === null ? "list" : loading} onKeyDown=${onKeyDown}>
      <div class="sticky-axis"><${Axis} from=${from} to=${to} now=${now} title=${view.lanes === "windows" ? "Cluster / window" : "Cluster / target"} /></div>
      ${clusters !== null && shown === 0 ? html`<p class="muted empty" data-testid="none">No cluster matches.</p>` : null}
      <div class="vlist" ref=${listRef} role="rowgroup" style=${{ height: `${total}px` }} onFocusIn=${onFocusIn} onFocusOut=${onFocusOut}>
        ${drawnRows.map(({ row: r, top }) => {
          const cluster = r.kind === "group" ? null : r.cluster.name;
          const holds = chosen !== null && cluster === chosen.band.cluster && ((r.kind === "lane" && r.laneKey === chosen.lane) || r.kind === "details");
          return html`<${RowView} key=${r.key} row=${r} top=${top} from=${from} to=${to} now=${now}
            status=${r.kind === "head" ? fetcher.status<FleetClusterView>(r.cluster.name) : null}
            chosen=${holds ? chosen.band : null} selected=${r.kind === "head" && cluster === view.cluster} expanded=${cluster !== null && (expanded.has(cluster) || (chosen !== null && chosen.band.cluster === cluster && chosen.lane.startsWith("window:")))}
            bands=${r.kind === "lane" ? (drawnNow.get(r.key) ?? null) : null} onChoose=${onChoose} onClose=${onClose} onToggle=${onToggle} onRetry=${onRetry} />`;
        })}
      </div>
    </div>
  </div>`;
}
