// The fleet page's share of bands a frame: sized by the last frame's measured script, between a floor and a ceiling, so frames stay short on a slow
// browser and draw as many as before on a fast one.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  BANDS_PER_FRAME,
  BANDS_PER_FRAME_MIN,
  type BandBudget,
  FRAME_PAINT_MS,
  FRAME_SCRIPT_MS,
  frameScheduler,
  nextBandShare,
  paintedIn,
  shareSpent,
} from "../../../src/server/dashboard/client/fleet.ts";

test("a quick frame with bands left grows the share, at most doubling it, never over BANDS_PER_FRAME", () => {
  assert.equal(nextBandShare(10, 10, FRAME_SCRIPT_MS / 4), 20);
  assert.equal(nextBandShare(BANDS_PER_FRAME - 10, BANDS_PER_FRAME - 10, 1), BANDS_PER_FRAME);
  assert.equal(nextBandShare(BANDS_PER_FRAME, BANDS_PER_FRAME, 0), BANDS_PER_FRAME);
});

test("a slow frame shrinks the share by how far it was over the aim, never under BANDS_PER_FRAME_MIN", () => {
  assert.equal(nextBandShare(60, 60, FRAME_SCRIPT_MS * 4), 15);
  assert.equal(nextBandShare(60, 60, FRAME_SCRIPT_MS * 2), 30);
  assert.equal(nextBandShare(60, 60, 10_000), BANDS_PER_FRAME_MIN);
  // Fewer drawn than the share (the bands ran out) and slow: what was drawn says what a frame takes.
  assert.equal(nextBandShare(60, 20, FRAME_SCRIPT_MS * 2), BANDS_PER_FRAME_MIN + 2);
});

test("a frame that ran out of bands before its share, and was quick, keeps the share", () => {
  assert.equal(nextBandShare(60, 5, 1), 60);
  assert.equal(nextBandShare(24, 3, FRAME_SCRIPT_MS), 24);
});

test("over frames the share settles where a frame takes about the aim, on a fast browser and on a slow one", () => {
  // A frame's script: a fixed part and a part a band, both `slow` times as long on a slower (or busier) machine (a quick 2-core machine's frames of at most
  // 60 bands took 2.2 ms of script on average, traced: docs/performance-history.md).
  const settle = (slow: number): { share: number; took: number } => {
    const frame = (bands: number): number => slow * (1 + 0.04 * bands);
    let share: number = BANDS_PER_FRAME;
    for (let i = 0; i < 30; i++) share = nextBandShare(share, share, frame(share));
    return { share, took: frame(share) };
  };
  const fast = settle(1);
  assert.equal(fast.share, BANDS_PER_FRAME, `a fast browser keeps ${BANDS_PER_FRAME} a frame (${fast.took.toFixed(1)} ms)`);
  for (const slow of [2, 3, 4]) {
    const { share, took } = settle(slow);
    assert.ok(share < BANDS_PER_FRAME && share >= BANDS_PER_FRAME_MIN, `${slow}× slower: ${share} bands a frame`);
    assert.ok(
      Math.abs(took - FRAME_SCRIPT_MS) <= FRAME_SCRIPT_MS * 0.2,
      `${slow}× slower: a frame takes ${took.toFixed(1)} ms, near the aim of ${FRAME_SCRIPT_MS}`,
    );
  }
  // So slow that even the fewest bands take over the aim: the floor, and the lanes still move on.
  assert.equal(settle(20).share, BANDS_PER_FRAME_MIN);
});

/** Animation frames by hand: `frame()` runs the callbacks asked for so far, as the browser's next frame would. */
function frames(): { frame: () => void; asked: () => number; restore: () => void } {
  const g = globalThis as unknown as { requestAnimationFrame?: (cb: () => void) => number; cancelAnimationFrame?: (id: number) => void };
  const saved = { request: g.requestAnimationFrame, cancel: g.cancelAnimationFrame };
  let next = 1;
  const pending = new Map<number, () => void>();
  g.requestAnimationFrame = (cb) => {
    pending.set(next, cb);
    return next++;
  };
  g.cancelAnimationFrame = (id) => void pending.delete(id);
  return {
    frame: () => {
      const now = [...pending.values()];
      pending.clear();
      for (const cb of now) cb();
    },
    asked: () => pending.size,
    restore: () => {
      g.requestAnimationFrame = saved.request;
      g.cancelAnimationFrame = saved.cancel;
    },
  };
}

/** Tasks posted by hand: `run()` runs those posted so far, as the browser would after the frame's own task. */
function tasks(): { post: (run: () => void) => void; run: () => void; posted: () => number } {
  const queue: Array<() => void> = [];
  return {
    post: (run) => void queue.push(run),
    run: () => {
      for (const task of queue.splice(0)) task();
    },
    posted: () => queue.length,
  };
}

test("the fleet page is drawn at most once a frame, however many ask: answers, lanes still drawing, the list placed", (t) => {
  const f = frames();
  t.after(f.restore);
  const posted = tasks();
  const budget: BandBudget = { spent: 0, share: 60, more: false, painting: 0, paintingShare: 0 };
  let renders = 0;
  const next = frameScheduler(budget, () => renders++, posted.post);
  const frame = (): void => {
    f.frame();
    posted.run();
  };
  // Two answers and the list's placement in one frame: one frame asked for, one render.
  next.draw();
  next.draw();
  budget.spent = 30;
  next.count();
  next.draw();
  assert.equal(f.asked(), 1);
  frame();
  assert.equal(renders, 1);
  assert.equal(budget.spent, 0, "a frame that draws starts the count of bands again");
  // Asked for with nothing to draw: no render, and the count is not started again (renders before the next drawing frame draw no bands).
  budget.spent = 60;
  next.count();
  frame();
  assert.equal(renders, 1);
  assert.equal(budget.spent, 60);
  // Lanes still drawing: the next frame draws them, asked or not.
  budget.more = true;
  next.count();
  frame();
  assert.equal(renders, 2);
  assert.equal(budget.spent, 0);
  // Nothing asked: no frame.
  budget.more = false;
  frame();
  assert.equal(renders, 2);
  assert.equal(f.asked(), 0);
  // Gone (the page closed): the frame asked for does not draw.
  next.draw();
  next.cancel();
  frame();
  assert.equal(renders, 2);
});

test("a frame's render runs in a task of its own after the frame's, and serves what is asked for before it runs", (t) => {
  const f = frames();
  t.after(f.restore);
  const posted = tasks();
  const budget: BandBudget = { spent: 60, share: 60, more: false, painting: 0, paintingShare: 0 };
  let renders = 0;
  const next = frameScheduler(budget, () => renders++, posted.post);
  next.draw();
  f.frame();
  // Not in the frame's callback: the browser lays out and paints the frame in the task of its callback.
  assert.equal(renders, 0, "the frame's callback does not render");
  assert.equal(posted.posted(), 1, "it posts the render");
  assert.equal(budget.spent, 60, "the count of bands starts again with the render, not the frame");
  // An answer between the frame and its render: the render draws it, and no other frame is asked for until the render has run.
  next.draw();
  next.count();
  assert.equal(f.asked(), 0);
  posted.run();
  assert.equal(renders, 1);
  assert.equal(budget.spent, 0);
  // Asked for again with nothing new: what was asked before the render was drawn by it, so the frame draws nothing.
  next.count();
  f.frame();
  posted.run();
  assert.equal(renders, 1, "what was asked for before the render was drawn by it");
  // After the render, asks are for the next frame again.
  next.draw();
  assert.equal(f.asked(), 1);
  // Gone between the frame and its render: the render does not run.
  f.frame();
  next.cancel();
  posted.run();
  assert.equal(renders, 1);
});

test("a render that leaves lanes drawing asks for the next frame itself, as the fleet page's does", (t) => {
  const f = frames();
  t.after(f.restore);
  const posted = tasks();
  const budget: BandBudget = { spent: 0, share: 60, more: false, painting: 0, paintingShare: 0 };
  let renders = 0;
  // The page's render: it draws its share and, while lanes are left, asks for the next frame.
  const next = frameScheduler(
    budget,
    () => {
      renders++;
      budget.more = renders < 3;
      if (budget.more) next.count();
    },
    posted.post,
  );
  next.draw();
  for (let frame = 0; frame < 5; frame++) {
    f.frame();
    posted.run();
  }
  assert.equal(renders, 3, "each render that left lanes drawing got the next frame");
  assert.equal(f.asked(), 0, "and the last asked for none");
});

test("once a render is committed its frame's share is spent: a render before the next frame draws no bands, whatever the frame left", (t) => {
  const f = frames();
  t.after(f.restore);
  const budget: BandBudget = { spent: 0, share: BANDS_PER_FRAME, more: false, painting: 0, paintingShare: 0 };
  const left = (): number => Math.max(0, budget.share - budget.spent);
  const posted = tasks();
  const next = frameScheduler(budget, () => undefined, posted.post);
  next.draw();
  f.frame();
  posted.run();
  // The frame's render drew its whole share, 10 under the most, and was quick: its commit grew the share to the most (what a CI run once saw, with 50 and 60:
  // in the next frame a scroll's render, in an animation frame callback, before the frame's own render, drew the 10 over, and the frame's render its 60: 70
  // laid out at once).
  budget.share = BANDS_PER_FRAME - 10;
  budget.spent = BANDS_PER_FRAME - 10;
  budget.share = nextBandShare(BANDS_PER_FRAME - 10, BANDS_PER_FRAME - 10, 1);
  assert.equal(budget.share, BANDS_PER_FRAME);
  shareSpent(budget);
  assert.equal(left(), 0, "a scroll's render before the next frame's own has no share to draw");
  // The frame's render drew 10 bands (all its lanes had left).
  next.draw();
  f.frame();
  posted.run();
  budget.spent = 10;
  shareSpent(budget);
  assert.equal(left(), 0);
  // A share that was spent over stays as it was.
  budget.spent = BANDS_PER_FRAME + 15;
  shareSpent(budget);
  assert.equal(budget.spent, BANDS_PER_FRAME + 15);
  // The next frame that draws has its whole share again.
  next.draw();
  f.frame();
  assert.equal(left(), 0, "the frame's callback starts no count: its render does");
  posted.run();
  assert.equal(left(), BANDS_PER_FRAME);
});

test("the frame that paints a render's bands sizes the share by its own time too: a slow paint shrinks it, a quick one leaves the script's", () => {
  // The last render drew 120 bands, its whole share, and its script was quick: the share grew to 150.
  const budget: BandBudget = { spent: 0, share: 150, more: true, painting: 120, paintingShare: 120 };
  // The browser took four times the aim to lay out and paint them.
  paintedIn(budget, FRAME_PAINT_MS * 4);
  assert.equal(budget.share, 30);
  assert.equal(budget.painting, 0, "a render's bands size the share once");
  paintedIn(budget, FRAME_PAINT_MS * 4);
  assert.equal(budget.share, 30, "a frame that painted no new bands says nothing of them");
  // A quick paint of a whole share lets the share grow as far as it says, not past what the script allows.
  Object.assign(budget, { share: 60, painting: 30, paintingShare: 30 });
  paintedIn(budget, FRAME_PAINT_MS / 2);
  assert.equal(budget.share, 60);
  Object.assign(budget, { share: 120, painting: 30, paintingShare: 30 });
  paintedIn(budget, FRAME_PAINT_MS / 1.5);
  assert.equal(budget.share, 45, "the script's share grew to 120, the paint's to 45");
  // A render that ran out of bands before its share, painted quickly, says nothing of a whole share's paint: the script's share stands.
  Object.assign(budget, { share: 120, painting: 5, paintingShare: 60 });
  paintedIn(budget, 1);
  assert.equal(budget.share, 120);
  assert.equal(budget.painting, 0);
  // Slowly, it does: 5 bands in twice the aim.
  Object.assign(budget, { share: 120, painting: 5, paintingShare: 60 });
  paintedIn(budget, FRAME_PAINT_MS * 2);
  assert.equal(budget.share, BANDS_PER_FRAME_MIN);
  // Never under the floor, however slow.
  Object.assign(budget, { share: 120, painting: 30, paintingShare: 30 });
  paintedIn(budget, 10_000);
  assert.equal(budget.share, BANDS_PER_FRAME_MIN);
});

test("the scheduler measures the frame's task, from its callback to the render it posted, for the bands the last render drew", (t) => {
  const f = frames();
  t.after(f.restore);
  const posted = tasks();
  let now = 1000;
  const budget: BandBudget = { spent: 0, share: 100, more: false, painting: 0, paintingShare: 0 };
  const next = frameScheduler(
    budget,
    () => {
      // The render draws its share, which the next frame's task lays out and paints.
      budget.spent = budget.share;
      budget.painting = budget.share;
      budget.paintingShare = budget.share;
      budget.more = true;
      next.count();
    },
    posted.post,
    () => now,
  );
  next.draw();
  f.frame();
  now += 50;
  posted.run();
  assert.equal(budget.share, 100, "the first render's frame painted nothing of it");
  // The next frame's task takes twice the aim (its layout and paint of the 100 bands) before its render runs.
  f.frame();
  now += FRAME_PAINT_MS * 2;
  posted.run();
  assert.equal(budget.share, 50);
  // A quick frame keeps it.
  f.frame();
  now += 1;
  posted.run();
  assert.equal(budget.share, 50);
  // A frame long after the last render (nothing asked for it until then) did not paint that render's bands: however long it takes, the share stands.
  budget.more = false;
  f.frame();
  posted.run();
  now += 1000;
  next.draw();
  f.frame();
  now += FRAME_PAINT_MS * 4;
  posted.run();
  assert.equal(budget.share, 50, "a frame long after the render says nothing of its bands");
});
