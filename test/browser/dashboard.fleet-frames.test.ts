// The fleet page in a real browser, watched frame by frame: a screen of answers is drawn over several frames, a bounded number of bands in each, fewer when
// the browser is slow, and the page says it is loaded only once every band is drawn.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { BANDS_PER_FRAME, BANDS_PER_FRAME_MIN } from "../../src/server/dashboard/client/fleet.ts";
import { serveGeneratedFleet, type ServedFleet } from "../support/fleet.ts";
import { NOW } from "../support/server.ts";
import { launch } from "./chromium.ts";
import { fleetLoaded } from "./fleet-page.ts";

let browser: Browser;
let fleet: ServedFleet;

before(async () => {
  // Each cluster's apps-rt target opens every hour for 30 minutes: 168 bands a week, as in the dashboard bench's fleets.
  fleet = await serveGeneratedFleet("browser-fleet-frames", 40);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await fleet?.close();
});

/**
 * Watches the page frame by frame (read back as `window.frames_`): at each frame, before any of its callbacks runs, the bands on the page and whether the fleet
 * says it is loading; and the bands each frame lays out (`window.laid_`), counted as they are added: those added in the frame's callbacks are its own, those
 * added anywhere else (a task between frames: the render a frame posts) are laid out by the frame that comes next. Each render's changes reach the probe's
 * MutationObserver in one callback: `window.renders_` counts, for each frame, the renders that added bands to it; `window.inside_` the bands added in a
 * frame's callbacks.
 *
 * Wrapping `requestAnimationFrame` lets the frame's first callback, whoever asked for it, mark the frame's start; the first message or timer task after it (a
 * message the probe posts, or the page's own) marks its end. The probe's own callback asks for every frame. The page's clock is fixed at NOW by replacing
 * `Date` alone: Playwright's clock would also replace the browser's animation frames with timers of its own, which run one by one, not as frames, and so
 * would not show what a frame draws.
 */
const PROBE = `
  const RealDate = Date;
  globalThis.Date = class extends RealDate {
    constructor(...args) {
      super(...(args.length === 0 ? [${NOW}] : args));
    }
    static now() {
      return ${NOW};
    }
  };
  window.frames_ = [];
  // The bands laid out by each frame; the last count is the coming frame's once bands were added between frames.
  window.laid_ = [];
  // The renders that added bands to each frame (as laid_), and the bands added in a frame's callbacks (a render in one: a scroll's).
  window.renders_ = [];
  window.inside_ = 0;
  let last = -1;
  let inFrame = false;
  let coming = false;
  const ended = new MessageChannel();
  ended.port1.onmessage = () => (inFrame = false);
  // Any message or timer task runs after the frame's, so each ends the frame as it runs: the probe's message alone is not enough. A CI run counted a posted
  // render's bands as drawn in a frame's callbacks, and the frame after it as drawing none: the browser had drawn a frame between the render's posting and
  // its task, and the probe's message of that frame, queued behind the render, ran after it.
  const port = Object.getOwnPropertyDescriptor(MessagePort.prototype, "onmessage");
  Object.defineProperty(MessagePort.prototype, "onmessage", {
    configurable: true,
    get() {
      return port.get.call(this);
    },
    set(handler) {
      port.set.call(this, typeof handler === "function" ? function (e) { inFrame = false; return handler.call(this, e); } : handler);
    },
  });
  const addListener = MessagePort.prototype.addEventListener;
  MessagePort.prototype.addEventListener = function (type, listener, options) {
    if (type !== "message" || typeof listener !== "function") return addListener.call(this, type, listener, options);
    return addListener.call(this, type, function (e) { inFrame = false; return listener.call(this, e); }, options);
  };
  const timer = window.setTimeout.bind(window);
  window.setTimeout = (handler, ms, ...args) =>
    timer(typeof handler === "function" ? (...a) => { inFrame = false; handler(...a); } : handler, ms, ...args);
  const start = (at) => {
    if (at === last) return;
    last = at;
    inFrame = true;
    if (!coming) {
      window.laid_.push(0);
      window.renders_.push(0);
    }
    coming = false;
    ended.port2.postMessage(0);
    const grid = document.querySelector(".fleet-grid");
    window.frames_.push({ bands: document.querySelectorAll(".fleet-grid .band").length, loading: grid === null ? null : grid.getAttribute("data-loading") });
  };
  new MutationObserver((records) => {
    let added = 0;
    for (const r of records)
      for (const n of r.addedNodes)
        if (n instanceof Element && n.closest(".fleet-grid") !== null) added += (n.matches(".band") ? 1 : 0) + n.querySelectorAll(".band").length;
    if (added === 0) return;
    if (inFrame) window.inside_ += added;
    if (!inFrame && !coming) {
      window.laid_.push(0);
      window.renders_.push(0);
      coming = true;
    }
    window.laid_[window.laid_.length - 1] += added;
    window.renders_[window.renders_.length - 1] += 1;
  }).observe(document, { childList: true, subtree: true });
  const browserFrame = window.requestAnimationFrame.bind(window);
  // The frames the page asks for (the probe's own aside).
  window.asked_ = 0;
  window.requestAnimationFrame = (callback) => {
    if (callback !== tick) window.asked_++;
    return browserFrame((at) => (start(at), callback(at)));
  };
  const tick = () => requestAnimationFrame(tick);
  requestAnimationFrame(tick);
`;

/**
 * Opens the fleet page (its CPU throttled `rate` times by Chrome; scrolled down a few screens while it loads if `scroll`), waits until it is loaded and a frame
 * more, and checks that every lane on the page ended up whole (each cluster's apps-rt lane has its 168 bands). The bands each frame laid out, the frames the
 * probe saw, the bands in the end and the page's errors.
 */
async function loadWatched(
  rate: number,
  scroll = false,
): Promise<{ drawing: number[]; frames: Array<{ bands: number; loading: string | null }>; final: number; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate });
  await page.addInitScript(PROBE);
  await page.goto(`${fleet.service.url}/#token=${fleet.tokens.viewer}`);
  if (scroll) {
    // From the first band on: 150 px every 20 ms, 40 times; then the page loads what it scrolled to.
    await page.locator(".fleet-grid .band").first().waitFor();
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          let n = 0;
          const timer = setInterval(() => {
            window.scrollBy(0, 150);
            if (++n < 40) return;
            clearInterval(timer);
            resolve();
          }, 20);
        }),
    );
  }
  await fleetLoaded(page);
  await page.locator(".fleet-grid .band").first().waitFor();
  // A frame more, so the probe has seen the last one drawn.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const { frames, laid, renders, inside } = await page.evaluate(() => {
    const w = window as unknown as { frames_: Array<{ bands: number; loading: string | null }>; laid_: number[]; renders_: number[]; inside_: number };
    return { frames: w.frames_, laid: w.laid_, renders: w.renders_, inside: w.inside_ };
  });
  const final = await page.locator(".fleet-grid .band").count();
  // Loaded, the page asks for no more frames: nothing is left to draw.
  const asked = (): Promise<number> => page.evaluate(() => (window as unknown as { asked_: number }).asked_);
  const askedWhenLoaded = await asked();
  await page.waitForTimeout(500);
  assert.equal(await asked(), askedWhenLoaded, "a loaded page still asks for frames");
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });

  const lanes = await page
    .locator('.vrow [data-target="Kustomization/flux-system/apps-rt"]')
    .evaluateAll((rows) => rows.map((r) => r.querySelectorAll(".band").length));
  assert.ok(lanes.length >= 5, `a screen of clusters: ${lanes.length}`);
  assert.deepEqual(
    lanes,
    lanes.map(() => 168),
    "every apps-rt lane has its 168 bands",
  );
  assert.equal(final, await page.locator(".vrow .band").count());
  await page.close();
  // Only a frame's own render draws bands, in a task the frame posts (not in its callbacks, which run in the task that lays the frame out): a scroll's render
  // (in an animation frame callback of its own) or an effect's (between frames) draws none, or it would draw what the last render left of its share and the
  // frame's render a whole share of its own (70 bands in one frame, once). A render in a frame's callback (the frame's, or a scroll's) is caught by `inside`;
  // an effect's render between frames that drew, by two renders adding to one frame. (The probe ends a frame with the first message or timer task after it,
  // the page's posted render included: a render posted by the frame before, run after a frame the browser drew first, is not that frame's.)
  assert.equal(inside, 0, `bands drawn in a frame's callbacks: ${JSON.stringify(laid)}`);
  assert.ok(
    renders.every((n) => n <= 1),
    `each frame's bands are drawn by one render: renders ${JSON.stringify(renders)}, bands ${JSON.stringify(laid)}`,
  );
  // Unscrolled, no lane leaves the page: its bands are each added once.
  if (!scroll)
    assert.equal(
      laid.reduce((a, b) => a + b, 0),
      final,
      "every band was added once",
    );
  return { drawing: laid.filter((n) => n > 0), frames, final, errors };
}

test("a screen of answers is drawn over several frames, a bounded number of bands each, and is loaded only once every band is drawn", async () => {
  const { drawing, frames, final, errors } = await loadWatched(1);

  // Drawn over several frames, none adding more than a frame's share (one cluster's lanes, 175 bands, were one frame's before).
  assert.ok(drawing.length >= Math.ceil(final / BANDS_PER_FRAME), `bands drawn over ${drawing.length} frames: ${JSON.stringify(drawing)}`);
  assert.ok(Math.max(...drawing) <= BANDS_PER_FRAME, `at most ${BANDS_PER_FRAME} bands a frame: ${JSON.stringify(drawing)}`);
  // Never loaded while bands were still to be drawn: the frames that saw it loaded, once lanes were drawn, saw every band.
  const early = frames.filter((f) => f.loading === "0" && f.bands > 0 && f.bands < final);
  assert.deepEqual(early, [], "the page said it was loaded before every band was drawn");
  assert.deepEqual(errors, []);
});

test("scrolled while it loads, each frame still lays out at most a share of bands, and every lane on the page ends whole", async () => {
  // Scrolling renders the page in an animation frame callback of its own, before the frame's own render (a task the frame posts): those renders draw no
  // bands (they find the last render's share spent), the frame's own render does.
  const { drawing, errors } = await loadWatched(1, true);
  assert.ok(Math.max(...drawing) <= BANDS_PER_FRAME, `at most ${BANDS_PER_FRAME} bands a frame: ${JSON.stringify(drawing)}`);
  assert.deepEqual(errors, []);
});

test("on a slow browser (Chrome's CPU throttled 8×) the frames draw fewer bands each, and still every band", async () => {
  const { drawing, frames, final, errors } = await loadWatched(8);
  assert.ok(Math.max(...drawing) <= BANDS_PER_FRAME, `at most ${BANDS_PER_FRAME} bands a frame: ${JSON.stringify(drawing)}`);
  // Each frame sizes the next one's share by its own time: 60 bands take well over the aim of 8 ms of script at 8× (2–5 ms unthrottled on a 2-core
  // machine), so most frames draw fewer than a fast browser's most (the first and the last aside: the first draws BANDS_FIRST_FRAME, the last what is left).
  const middle = drawing.slice(1, -1);
  assert.ok(middle.length > 0, `bands drawn over several frames: ${JSON.stringify(drawing)}`);
  const median = [...middle].sort((a, b) => a - b)[Math.floor(middle.length / 2)] as number;
  assert.ok(median < BANDS_PER_FRAME, `a slow browser's frames draw fewer bands than a fast one's ${BANDS_PER_FRAME}: ${JSON.stringify(drawing)}`);
  assert.ok(
    middle.every((n) => n >= BANDS_PER_FRAME_MIN),
    `yet at least ${BANDS_PER_FRAME_MIN} while bands are left: ${JSON.stringify(drawing)}`,
  );
  const early = frames.filter((f) => f.loading === "0" && f.bands > 0 && f.bands < final);
  assert.deepEqual(early, [], "the page said it was loaded before every band was drawn");
  assert.deepEqual(errors, []);
});

test("while the list of clusters is on its way, the page's toolbar, legend and axis are drawn and say the fleet is loading; its rows come with the list", async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  // The list is held until the page has been looked at.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/v1/clusters*", async (route) => {
    await held;
    await route.continue();
  });
  const grid = page.locator(".fleet-grid");
  try {
    await page.goto(`${fleet.service.url}/#token=${fleet.tokens.viewer}`);
    await page.locator('.fleet-grid[data-loading="list"]').waitFor();
    assert.match(await page.getByTestId("count").innerText(), /^Loading the fleet… · /);
    assert.equal(await grid.getAttribute("aria-busy"), "true");
    assert.ok(await page.locator("form.toolbar").isVisible(), "the toolbar is drawn");
    assert.ok(await page.locator("ul.legend").isVisible(), "the legend is drawn");
    assert.ok(await page.locator(".fleet-grid .axis").isVisible(), "the axis is drawn");
    assert.equal(await page.locator(".vrow").count(), 0, "no row before the list");
    assert.equal(await page.getByTestId("none").count(), 0, "a fleet still loading is not said to match nothing");
  } finally {
    release();
  }
  await fleetLoaded(page);
  assert.match(await page.getByTestId("count").innerText(), /^40 of 40 clusters · /);
  assert.ok((await page.locator(".vrow").count()) > 0);
  assert.equal(await grid.getAttribute("aria-busy"), "false");
  await page.close();
  assert.deepEqual(errors, []);
});
