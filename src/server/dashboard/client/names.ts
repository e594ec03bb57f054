// Cluster names in order, numbers as numbers (edge-9 before edge-10): by a key of each name where they are all names of Kubernetes' letters, else by a collator.

/** A name a key can order as the collator would: lower-case letters, digits, '-' and '.' (what Kubernetes names are made of). */
const PLAIN = /^[a-z0-9.-]*$/;

/** The longest run of digits a key writes: its length is one character from '1' up to '`' (0x31 to 0x60), below the letters. */
const MAX_DIGITS = 0x60 - 0x30;

/** The collator, made when first asked (making it loads the browser's collation data: 10 to 30 ms of one task in Chromium). */
let collator: Intl.Collator | null = null;

/** The collator of names: English, numbers as numbers. */
export function nameCollator(): Intl.Collator {
  return (collator ??= new Intl.Collator("en", { numeric: true }));
}

/**
 * The key of a plain name, or null where a run of digits is too long to write: each run of digits, without its leading zeros, as its length (one character
 * between '0' and 'a') and then its digits. Compared by code unit the keys order names as an English collator with numeric order does: '-' before '.' before
 * digits before letters, shorter numbers before longer ones.
 */
function keyOf(name: string): string | null {
  let key = "";
  let i = 0;
  while (i < name.length) {
    let j = i;
    while (j < name.length && !isDigit(name.charCodeAt(j))) j++;
    key += name.slice(i, j);
    if (j === name.length) break;
    // A run of digits: its leading zeros dropped (all but the last), then its length and digits.
    let end = j;
    while (end < name.length && isDigit(name.charCodeAt(end))) end++;
    while (j < end - 1 && name.charCodeAt(j) === ZERO) j++;
    if (end - j > MAX_DIGITS) return null;
    key += String.fromCharCode(ZERO + end - j) + name.slice(j, end);
    i = end;
  }
  return key;
}

const ZERO = 0x30;
const isDigit = (c: number): boolean => c >= ZERO && c <= ZERO + 9;

const byCode = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Names keyed in one task, at most: keying 10,000 names took 16 to 32 ms in one task of Chromium's, before its code was optimised. */
export const KEYS_PER_TASK = 2_000;

/**
 * `items` sorted by `nameOf`, numbers as numbers: by keys where every name is plain, else by the collator. Compared by the collator, 10,000 names out of order
 * took 37 to 92 ms of one task in Chromium (3 to 15 ms in order); by keys, compared as strings, 5 to 11 ms in any order, the keys made a task's worth at a
 * time. Names equal in order (edge-01 and edge-1) keep their order by code unit, the same every time. `pause` is awaited between tasks' worth of keys.
 */
export async function sortedByName<T>(items: readonly T[], nameOf: (item: T) => string, pause: () => Promise<void> = () => Promise.resolve()): Promise<T[]> {
  const keyed: Array<{ key: string; name: string; item: T }> = [];
  for (const item of items) {
    if (keyed.length > 0 && keyed.length % KEYS_PER_TASK === 0) await pause();
    const name = nameOf(item);
    const key = PLAIN.test(name) ? keyOf(name) : null;
    if (key === null) {
      const order = nameCollator();
      await pause();
      return [...items].sort((a, b) => order.compare(nameOf(a), nameOf(b)) || byCode(nameOf(a), nameOf(b)));
    }
    keyed.push({ key, name, item });
  }
  return byKeys(keyed);
}

function byKeys<T>(keyed: Array<{ key: string; name: string; item: T }>): T[] {
  keyed.sort((a, b) => byCode(a.key, b.key) || byCode(a.name, b.name));
  return keyed.map((k) => k.item);
}

/**
 * `items` sorted by `nameOf` in sortedByName's order, in one go, for short lists (the groups of a view): by keys where every name is plain, so that the
 * collator, and the browser's collation data, are made only for names that need them.
 */
export function sortedByNameNow<T>(items: readonly T[], nameOf: (item: T) => string): T[] {
  const keyed: Array<{ key: string; name: string; item: T }> = [];
  for (const item of items) {
    const name = nameOf(item);
    const key = PLAIN.test(name) ? keyOf(name) : null;
    if (key === null) {
      const order = nameCollator();
      return [...items].sort((a, b) => order.compare(nameOf(a), nameOf(b)) || byCode(nameOf(a), nameOf(b)));
    }
    keyed.push({ key, name, item });
  }
  return byKeys(keyed);
}
