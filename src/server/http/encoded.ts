// Answers kept as bytes per key, compressed once per encoding (br or gzip, as Accept-Encoding allows), with an ETag for If-None-Match.

import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { Context } from "hono";
import { KeptByBytes } from "../model/kept.ts";

/** How an answer is sent. */
export type Encoding = "br" | "gzip" | "identity";

const SUFFIX: Record<Encoding, string> = { br: "-br", gzip: "-gz", identity: "" };

/**
 * The encoding to answer with for an Accept-Encoding header: br, then gzip, when the client takes
 * them (a q of 0 refuses one; `*` stands for those it does not name); identity otherwise.
 *
 * @example chosenEncoding("gzip, deflate, br") // "br"
 */
export function chosenEncoding(header: string | undefined): Encoding {
  if (header === undefined) return "identity";
  const q = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (name === undefined || name === "") continue;
    const weight = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    q.set(name === "x-gzip" ? "gzip" : name, weight === undefined ? 1 : Number(weight));
  }
  const takes = (name: string): boolean => (q.get(name) ?? q.get("*") ?? 0) > 0;
  if (takes("br")) return "br";
  if (takes("gzip")) return "gzip";
  return "identity";
}

const compressors: Record<Exclude<Encoding, "identity">, (bytes: Uint8Array) => Promise<Uint8Array>> = {
  // Quality 5: most of brotli's gain on JSON at a fraction of the time of its default (11). Both run on libuv's thread pool, off the event loop.
  br: (bytes) => promisify(brotliCompress)(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength } }),
  gzip: (bytes) => promisify(gzip)(bytes),
};

/** One kept answer: its bytes, their ETag, and each encoding made so far. */
export class EncodedAnswer {
  readonly bytes: Uint8Array;
  /** The ETag of the bytes as they are (an encoding adds its suffix), without quotes. */
  readonly tag: string;
  private readonly made = new Map<Encoding, Promise<Uint8Array>>();
  private readonly grew: (bytes: number) => void;

  constructor(bytes: Uint8Array, grew: (bytes: number) => void) {
    this.bytes = bytes;
    this.tag = createHash("sha256").update(bytes).digest("base64url").slice(0, 27);
    this.grew = grew;
  }

  /** The quoted ETag of the answer sent with `encoding`. */
  etag(encoding: Encoding): string {
    return `"${this.tag}${SUFFIX[encoding]}"`;
  }

  /** True when an If-None-Match header names this answer in any encoding (a weak comparison, as RFC 9110 asks for If-None-Match). */
  matches(ifNoneMatch: string | undefined): boolean {
    if (ifNoneMatch === undefined) return false;
    return ifNoneMatch.split(",").some((t) => {
      const tag = t
        .trim()
        .replace(/^W\//, "")
        .replace(/^"(.*)"$/, "$1");
      // Compared whole: a tag of the bytes may itself end in "-br" or "-gz".
      return tag === "*" || tag === this.tag || tag === `${this.tag}${SUFFIX.br}` || tag === `${this.tag}${SUFFIX.gzip}`;
    });
  }

  /** The bytes in `encoding`, compressed at the first request for it and kept. */
  body(encoding: Encoding): Promise<Uint8Array> {
    if (encoding === "identity") return Promise.resolve(this.bytes);
    let made = this.made.get(encoding);
    if (made === undefined) {
      made = compressors[encoding](this.bytes);
      this.made.set(encoding, made);
      made.then(
        (b) => this.grew(b.byteLength),
        () => this.made.delete(encoding),
      );
    }
    return made;
  }
}

/**
 * Answers kept by key (a key names everything the bytes depend on, e.g. commit, range and page),
 * each made once however many ask at the same time, with their encodings counted against the
 * same budget.
 */
export class EncodedAnswers {
  private readonly kept: KeptByBytes<EncodedAnswer>;

  constructor(maxBytes = 32 * 1024 * 1024) {
    this.kept = new KeptByBytes(maxBytes);
  }

  /** Answers given from what was kept. */
  get hits(): number {
    return this.kept.hits;
  }

  /** The answer for `key`, made by `make` when it is not kept. */
  get(key: string, make: () => Promise<Uint8Array>): Promise<EncodedAnswer> {
    const entry: Promise<EncodedAnswer> = this.kept.get(
      key,
      async () => new EncodedAnswer(await make(), (n) => this.kept.grow(key, entry, n)),
      (a) => a.bytes.byteLength,
    );
    return entry;
  }
}

/**
 * The answer kept at `key` (made by `make` when it is not kept), compressed once per encoding the
 * client takes, with an ETag; 304 when If-None-Match names it. `?pretty` gets it as it is, to be
 * indented (prettyJsonOffLoop), without an ETag: the indented bytes are not the ones it names.
 * `key` names everything the JSON depends on (e.g. commit, range and page).
 */
export async function keptJsonResponse(c: Context, answers: EncodedAnswers, key: string, make: () => Promise<Uint8Array>): Promise<Response> {
  const answer = await answers.get(key, make);
  if (c.req.query("pretty") !== undefined)
    return c.body(answer.bytes as Uint8Array<ArrayBuffer>, 200, { "Content-Type": "application/json", "Cache-Control": "private, no-cache" });
  const encoding = chosenEncoding(c.req.header("accept-encoding"));
  const headers: Record<string, string> = { ETag: answer.etag(encoding), Vary: "Accept-Encoding", "Cache-Control": "private, no-cache" };
  if (answer.matches(c.req.header("if-none-match"))) return c.body(null, 304, headers);
  const body = await answer.body(encoding);
  return c.body(body as Uint8Array<ArrayBuffer>, 200, {
    ...headers,
    "Content-Type": "application/json",
    ...(encoding === "identity" ? {} : { "Content-Encoding": encoding }),
  });
}
