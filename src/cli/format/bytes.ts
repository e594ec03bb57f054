// Long machine output made as bytes: text encoded as it comes, RFC 3339 times written digit by digit into the chunk.

import { once } from "node:events";
import { rfc3339, rfc3339Exact } from "../../schedule/format.ts";

const CHUNK = 64 * 1024;
/** Room a call of `time` needs at most (a date of a six-digit year, the time to the millisecond). */
const TIME_BYTES = 32;
const DAY = 86_400_000;
/** The largest distance from 1970 a Date holds. */
const DATE_EDGE = 8.64e15;
const [ZERO, COLON, DOT, Z] = [48, 58, 46, 90];

/**
 * Bytes of output in chunks of about 64 KiB, which a generator hands on as each fills (`full`, `take`). A time is
 * written as rfc3339Exact writes it, byte by byte, its date copied from the last day's: a year of a JSON preview
 * writes 525,600 of them, and a string made for each, joined to its line and encoded, was half the command's time
 * (docs/performance-history.md).
 */
export class ByteChunks {
  private chunk = Buffer.allocUnsafe(CHUNK);
  private used = 0;
  private day = NaN;
  /** The date part (`2026-03-29T`) of the last day written. */
  private date: Uint8Array = new Uint8Array(0);

  /** Whether the chunk is nearly full: `take` it before writing more. */
  get full(): boolean {
    return this.used > CHUNK - 4 * TIME_BYTES;
  }

  /** The bytes so far, for the caller to hand on (the stream keeps them until written); what follows goes into a new chunk. */
  take(): Buffer {
    const full = this.chunk.subarray(0, this.used);
    this.chunk = Buffer.allocUnsafe(CHUNK);
    this.used = 0;
    return full;
  }

  /** `text` in UTF-8. */
  text(text: string): void {
    // At most 3 bytes a UTF-16 unit in UTF-8.
    this.room(text.length * 3);
    this.used += this.chunk.write(text, this.used, "utf8");
  }

  /** Bytes made once (by `ascii`), copied: the parts of a line that every line repeats. */
  bytes(bytes: Uint8Array): void {
    this.room(bytes.length);
    const chunk = this.chunk;
    let u = this.used;
    for (let i = 0; i < bytes.length; i++) chunk[u++] = bytes[i] as number;
    this.used = u;
  }

  /** `t` as rfc3339Exact writes it: `2026-03-29T01:00:00Z`, `2026-03-29T01:00:00.500Z`. */
  time(t: number): void {
    if (!Number.isInteger(t) || Math.abs(t) > DATE_EDGE) {
      this.text(rfc3339Exact(t));
      return;
    }
    const day = Math.floor(t / DAY);
    if (day !== this.day) {
      const date = rfc3339(day * DAY);
      this.date = ascii(date.slice(0, date.indexOf("T") + 1));
      this.day = day;
    }
    this.bytes(this.date);
    this.room(TIME_BYTES);
    const chunk = this.chunk;
    let u = this.used;
    const ms = t - day * DAY;
    const second = Math.floor(ms / 1000);
    const hour = Math.floor(second / 3600);
    const minute = Math.floor(second / 60) % 60;
    const s = second % 60;
    chunk[u++] = ZERO + Math.floor(hour / 10);
    chunk[u++] = ZERO + (hour % 10);
    chunk[u++] = COLON;
    chunk[u++] = ZERO + Math.floor(minute / 10);
    chunk[u++] = ZERO + (minute % 10);
    chunk[u++] = COLON;
    chunk[u++] = ZERO + Math.floor(s / 10);
    chunk[u++] = ZERO + (s % 10);
    const fraction = ms % 1000;
    if (fraction !== 0) {
      chunk[u++] = DOT;
      chunk[u++] = ZERO + Math.floor(fraction / 100);
      chunk[u++] = ZERO + (Math.floor(fraction / 10) % 10);
      chunk[u++] = ZERO + (fraction % 10);
    }
    chunk[u++] = Z;
    this.used = u;
  }

  /** Room for `n` more bytes: a larger chunk when the bytes so far and `n` do not fit (a line longer than a chunk). */
  private room(n: number): void {
    if (this.used + n <= this.chunk.length) return;
    const larger = Buffer.allocUnsafe(this.used + n + CHUNK);
    this.chunk.copy(larger, 0, 0, this.used);
    this.chunk = larger;
  }
}

/** The bytes of ASCII `text`, made once. */
export function ascii(text: string): Uint8Array {
  return Buffer.from(text, "latin1");
}

/** Writes each chunk to `out`, waiting whenever the stream asks to. */
export async function writeChunks(out: NodeJS.WritableStream, chunks: Iterable<Uint8Array>): Promise<void> {
  for (const chunk of chunks) {
    if (chunk.length > 0 && !out.write(chunk)) await once(out, "drain");
  }
}
