// Colour for people at a terminal: only when stdout is a TTY that shows colour, never with NO_COLOR set (https://no-color.org).

import type { WriteStream } from "node:tty";
import { styleText } from "node:util";

export type Style = Parameters<typeof styleText>[0];

/** Paints text in a style, or leaves it as it is when colour is off. */
export type Paint = (style: Style, text: string) => string;

/** True when `stream` is a terminal with colours and the environment does not turn them off. */
export function colorEnabled(stream: NodeJS.WritableStream, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  const tty = stream as Partial<WriteStream>;
  return tty.isTTY === true && typeof tty.hasColors === "function" && tty.hasColors(env);
}

export function painter(enabled: boolean): Paint {
  return enabled ? (style, text) => styleText(style, text, { validateStream: false }) : (_style, text) => text;
}

/** The colour of a window's or target's state, as the status table and explain show it. */
export function stateStyle(state: string): Style {
  switch (state) {
    case "Open":
      return "green";
    case "Closed":
      return "yellow";
    case "Frozen":
      return "cyan";
    case "Overridden":
      return "magenta";
    case "Invalid":
      return "red";
    default:
      return "dim";
  }
}
