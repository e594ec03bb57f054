// Label selectors written as text (kubectl's `-l ring=prod,region in (eu,us)`), read into the LabelSelector shape that select.ts matches.

import { InputError } from "../errors.ts";
import { isLabelKey, isLabelValue, LABEL_KEY_MESSAGE, LABEL_VALUE_MESSAGE } from "../api/label-syntax.ts";
import type { LabelSelector } from "./select.ts";

/** A selector text that cannot be read; `flag` names where it came from (`--selector`, `?selector=`). */
export class SelectorSyntaxError extends InputError {
  constructor(message: string) {
    super(message, { reason: "InvalidSelector" });
  }
}

type Requirement = NonNullable<LabelSelector["matchExpressions"]>[number];

/** Splits at commas that are not inside parentheses. */
function requirements(text: string, fail: (why: string) => never): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (depth < 0 || depth > 1) fail("parentheses do not match");
    if (ch === "," && depth === 0) {
      out.push(current.trim());
      current = "";
    } else current += ch;
  }
  if (depth !== 0) fail("parentheses do not match");
  out.push(current.trim());
  return out;
}

/**
 * Reads a label selector in Kubernetes' text syntax: requirements separated by commas, each
 * `key=value`, `key==value`, `key!=value`, `key in (a,b)`, `key notin (a,b)`, `key` (exists) or
 * `!key` (does not exist). Keys and values must be valid label keys and values. Throws a
 * SelectorSyntaxError naming `flag` and the requirement at fault. The empty text selects everything.
 *
 * @example parseSelector("ring=prod,region in (eu,us),!legacy") // { matchLabels: { ring: "prod" }, matchExpressions: [{ key: "region", operator: "In", values:
 * ["eu", "us"] }, { key: "legacy", operator: "DoesNotExist" }] }
 */
export function parseSelector(text: string, flag = "--selector"): LabelSelector {
  const fail = (why: string): never => {
    throw new SelectorSyntaxError(`${flag} ${JSON.stringify(text)}: ${why}; write a Kubernetes label selector, e.g. ring=prod,region in (eu,us)`);
  };
  const matchLabels: Record<string, string> = {};
  const matchExpressions: Requirement[] = [];
  if (text.trim() === "") return { matchLabels, matchExpressions };
  const key = (k: string, part: string): string => {
    if (!isLabelKey(k)) fail(`"${part}": "${k}" ${LABEL_KEY_MESSAGE}`);
    return k;
  };
  const value = (v: string, part: string): string => {
    if (!isLabelValue(v)) fail(`"${part}": "${v}" ${LABEL_VALUE_MESSAGE}`);
    return v;
  };
  for (const part of requirements(text, fail)) {
    if (part === "") fail("a requirement between commas is empty");
    let m: RegExpExecArray | null;
    if ((m = /^(\S+?)\s*(==|=|!=)\s*(\S*)$/.exec(part)) !== null) {
      const k = key(m[1] as string, part);
      const v = value(m[3] as string, part);
      if (m[2] === "!=") matchExpressions.push({ key: k, operator: "NotIn", values: [v] });
      else if (Object.hasOwn(matchLabels, k) && matchLabels[k] !== v) fail(`"${k}" cannot equal both "${matchLabels[k] ?? ""}" and "${v}"`);
      else matchLabels[k] = v;
    } else if ((m = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part)) !== null) {
      const k = key(m[1] as string, part);
      const values = (m[3] as string).split(",").map((v) => v.trim());
      if (values.length === 1 && values[0] === "") fail(`"${part}": ${m[2] as string} needs at least one value`);
      matchExpressions.push({ key: k, operator: m[2] === "in" ? "In" : "NotIn", values: values.map((v) => value(v, part)) });
    } else if ((m = /^!\s*(\S+)$/.exec(part)) !== null) {
      matchExpressions.push({ key: key(m[1] as string, part), operator: "DoesNotExist" });
    } else if (/^\S+$/.test(part)) {
      matchExpressions.push({ key: key(part, part), operator: "Exists" });
    } else fail(`"${part}" is not a requirement (key=value, key!=value, key in (a,b), key notin (a,b), key or !key)`);
  }
  return { matchLabels, matchExpressions };
}

/**
 * A selector written back as text, in a stable order (matchLabels, then expressions as given).
 *
 * @example formatSelector({ matchLabels: { ring: "prod" } }) // "ring=prod"
 */
export function formatSelector(selector: LabelSelector): string {
  const parts = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    const values = e.values ?? [];
    if (e.operator === "In") parts.push(`${e.key} in (${values.join(",")})`);
    else if (e.operator === "NotIn") parts.push(values.length === 1 ? `${e.key}!=${values[0] ?? ""}` : `${e.key} notin (${values.join(",")})`);
    else if (e.operator === "Exists") parts.push(e.key);
    else parts.push(`!${e.key}`);
  }
  return parts.join(",");
}
