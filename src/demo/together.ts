// Stories played at the same time and told one after the other: each story's lines are held until the story before it is told.

import { Expectations, type Result } from "./expectations.ts";

/** Where the demo's lines go: the timeline and narration, and one line per expectation. */
export interface Channels {
  readonly out: (line: string) => void;
  readonly results: (line: string) => void;
}

/** Where one story writes: straight through once it is the story being told, held until then. */
export class StorySink {
  /** The story's own expectations; their lines are held with the rest. */
  readonly expectations: Expectations;
  private readonly channels: Channels;
  private held: [keyof Channels, string][] | undefined = [];

  constructor(channels: Channels) {
    this.channels = channels;
    this.expectations = new Expectations((line) => this.write("results", line));
  }

  /** A timeline or narration line. */
  out(line: string): void {
    this.write("out", line);
  }

  /** Writes what was held, in the order it came, and from now on writes straight through. */
  tell(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const [channel, line] of held) this.channels[channel](line);
  }

  private write(channel: keyof Channels, line: string): void {
    if (this.held === undefined) this.channels[channel](line);
    else this.held.push([channel, line]);
  }
}

/**
 * Plays one story per item at the same time and tells them in order: the first as it happens, each
 * next one from the moment the one before it has ended (what it wrote until then first). Every story
 * is played to its end; then the first error thrown, if any, is thrown. Returns each story's
 * results, in the items' order.
 *
 * @example await playAtOnce(["Suspend", "Gate"], (mode, sink) => playStory({ mode, …, timeline: (e) => sink.out(formatEntry(e)), expectations: sink.expectations }), (mode) => [`== ${mode} ==`], { out, results })
 */
export async function playAtOnce<T>(
  items: readonly T[],
  play: (item: T, sink: StorySink) => Promise<void>,
  heading: (item: T, index: number) => readonly string[],
  channels: Channels,
): Promise<Result[][]> {
  const sinks = items.map((item, i) => {
    const sink = new StorySink(channels);
    for (const line of heading(item, i)) sink.out(line);
    return sink;
  });
  sinks[0]?.tell();
  // Each play's outcome, as a value: a story that throws neither stops the others nor goes unobserved.
  const ended = items.map((item, i) =>
    play(item, sinks[i] as StorySink).then(
      () => ({ ok: true as const }),
      (error: unknown) => ({ ok: false as const, error }),
    ),
  );
  const outcomes = [];
  for (const [i, end] of ended.entries()) {
    outcomes.push(await end);
    sinks[i + 1]?.tell();
  }
  const failed = outcomes.find((o) => !o.ok);
  if (failed !== undefined && !failed.ok) throw failed.error;
  return sinks.map((s) => s.expectations.results);
}
