// The dashboard bench's description of a load's longest task: the long animation frame that holds it, its scripts and its rendering.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { longTaskParts, type LongFrame } from "../../../bench/dashboard.ts";

const frame = (start: number, duration: number, render: number, scripts: LongFrame["scripts"] = []): LongFrame => ({ start, duration, render, scripts });

describe("the dashboard bench's long task parts", () => {
  it("names the scripts of the frame that holds the task and its rendering from its style and layout on", () => {
    const frames = [
      frame(100, 55, 0, [{ invoker: "Response.json.then", fn: "", url: "", duration: 52.4 }]),
      frame(400, 61.2, 420.5, [
        { invoker: "FrameRequestCallback", fn: "run", url: "fleet.js", duration: 5.4 },
        { invoker: "MessagePort.onmessage", fn: "draw", url: "fleet.js", duration: 6.6 },
      ]),
    ];
    assert.equal(
      longTaskParts([405, 54.3], frames),
      "54 at 405 in 61: FrameRequestCallback run fleet.js 5 + MessagePort.onmessage draw fleet.js 7 + render 41",
    );
    assert.equal(longTaskParts([100.5, 52.6], frames), "53 at 101 in 55: Response.json.then 52");
  });

  it("does not repeat a function the invoker ends with (a name inside it is still given), and says when no frame holds the task", () => {
    const frames = [
      frame(0, 70, 0, [
        { invoker: "HTMLElement.onclick", fn: "onclick", url: "main.js", duration: 40 },
        { invoker: "TimerHandler:setTimeout", fn: "on", url: "main.js", duration: 26 },
      ]),
    ];
    assert.equal(longTaskParts([1, 68], frames), "68 at 1 in 70: HTMLElement.onclick main.js 40 + TimerHandler:setTimeout on main.js 26");
    assert.equal(longTaskParts([200, 60], frames), "60 at 200 in ?");
    assert.equal(longTaskParts([0, 69], [frame(0, 70, 0)]), "69 at 0 in 70: the browser's");
  });
});
