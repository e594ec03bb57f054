/// <reference lib="dom" />
// Instants for people in the dashboard: local to a cluster's zone and in UTC, with durations.

const local = new Map<string, Intl.DateTimeFormat>();

/**
 * Abbreviations of zones whose abbreviation the browser's locale data leaves as "GMT+9": standard,
 * then daylight time. Zones not here show what Intl gives (EST, CET, BST) or the GMT offset.
 */
const ABBREVIATIONS: Record<string, readonly [string, string?]> = {
  "Asia/Tokyo": ["JST"],
  "Asia/Seoul": ["KST"],
  "Asia/Shanghai": ["CST"],
  "Asia/Taipei": ["CST"],
  "Asia/Hong_Kong": ["HKT"],
  "Asia/Singapore": ["SGT"],
  "Asia/Kolkata": ["IST"],
  "Asia/Calcutta": ["IST"],
  "Asia/Jakarta": ["WIB"],
  "Asia/Manila": ["PHT"],
  "Asia/Karachi": ["PKT"],
  "Asia/Dubai": ["GST"],
  "Asia/Jerusalem": ["IST", "IDT"],
  "Europe/Moscow": ["MSK"],
  "Europe/Istanbul": ["TRT"],
  "Africa/Johannesburg": ["SAST"],
  "Africa/Lagos": ["WAT"],
  "Africa/Nairobi": ["EAT"],
  "Australia/Sydney": ["AEST", "AEDT"],
  "Australia/Melbourne": ["AEST", "AEDT"],
  "Australia/Brisbane": ["AEST"],
  "Australia/Adelaide": ["ACST", "ACDT"],
  "Australia/Perth": ["AWST"],
  "Pacific/Auckland": ["NZST", "NZDT"],
  "America/Sao_Paulo": ["BRT"],
  "America/Argentina/Buenos_Aires": ["ART"],
};

/** Formats made once per zone and kind: making an Intl.DateTimeFormat costs far more than using one, and a screen of lanes formats thousands of instants. */
const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(key: string, make: () => Intl.DateTimeFormat): Intl.DateTimeFormat {
  let format = formats.get(key);
  if (format === undefined) {
    format = make();
    formats.set(key, format);
  }
  return format;
}

function zonePart(locale: string, zone: string, t: number): string {
  const format = formatOf(`zone|${locale}|${zone}`, () => new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: "short" }));
  return format.formatToParts(new Date(t)).find((p) => p.type === "timeZoneName")?.value ?? "";
}

/** Minutes east of UTC of a "GMT+5:30" label. */
function offsetOf(label: string): number {
  const m = /^GMT([+-])(\d{1,2})(?::(\d{2}))?$/.exec(label);
  return m === null ? 0 : (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

/**
 * What `make` gave for `key`, made once: a screen of lanes asks for the same few instants again and again (the same schedule on many clusters), and a
 * format's call is dear next to a look-up. Forgotten all at once now and then, so a page left open for days does not keep every instant it ever showed.
 */
function remembered(kept: Map<string, string>, key: string, make: () => string): string {
  let value = kept.get(key);
  if (value === undefined) {
    if (kept.size >= 50_000) kept.clear();
    value = make();
    kept.set(key, value);
  }
  return value;
}

/** Abbreviations found, by zone and instant (formatToParts is the page's dearest call). */
const abbreviations = new Map<string, string>();

const DAY_MS = 86_400_000;

/**
 * The zone's abbreviation at `t` where it has one (EST, CET, JST), else its GMT offset. Found for the UTC day of `t` once, at its first and last millisecond:
 * where the two agree, the zone did not change in that day (a zone changes a few times a year at most, never there and back within a day, as the axis's
 * zoneChanges also reads them), and every instant of it has that abbreviation; only a day with a change asks for the instant itself. A week of a cluster's
 * bands has hundreds of instants and eight days: asking for each instant made a cluster's first answer in a zone a task of 10 to 15 ms (traced).
 */
export function zoneAbbreviation(zone: string, t: number): string {
  const day = Math.floor(t / DAY_MS) * DAY_MS;
  const first = abbreviationAt(zone, day);
  if (first === abbreviationAt(zone, day + DAY_MS - 1)) return first;
  return abbreviationAt(zone, t);
}

/** The zone's abbreviation at the instant `t`, asked for once. */
function abbreviationAt(zone: string, t: number): string {
  return remembered(abbreviations, `${zone}|${t}`, () => findAbbreviation(zone, t));
}

/** The zone's abbreviation at `t`, asked of the browser's locale data. Exported for the tests, which hold zoneAbbreviation to it. */
export function findAbbreviation(zone: string, t: number): string {
  const gmt = /^GMT[+-]/;
  for (const locale of ["en-US", "en-GB"]) {
    const name = zonePart(locale, zone, t);
    if (!gmt.test(name)) return name;
  }
  const offset = zonePart("en-US", zone, t);
  const known = ABBREVIATIONS[zone];
  if (known === undefined) return offset;
  const year = new Date(t).getUTCFullYear();
  const standard = Math.min(offsetOf(zonePart("en-US", zone, Date.UTC(year, 0, 1))), offsetOf(zonePart("en-US", zone, Date.UTC(year, 6, 1))));
  return offsetOf(offset) > standard && known[1] !== undefined ? known[1] : known[0];
}

/** Local times written, by zone and instant (a band's description has two). */
const localWritten = new Map<string, string>();

/** `Mon 23 Nov, 08:00 CET` in `zone`. */
export function localTime(iso: string | number, zone: string): string {
  return remembered(localWritten, `${zone}|${iso}`, () => writeLocalTime(iso, zone));
}

function writeLocalTime(iso: string | number, zone: string): string {
  let format = local.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone,
      weekday: "short",
      day: "2-digit",
      month: "short",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    local.set(zone, format);
  }
  const t = new Date(iso).getTime();
  return `${format.format(t)} ${zoneAbbreviation(zone, t)}`;
}

/** `14:00 CET` in `zone`. */
export function hourMinute(iso: string | number, zone: string): string {
  const t = new Date(iso).getTime();
  const format = formatOf(`hm|${zone}`, () => new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }));
  return `${format.format(t)} ${zoneAbbreviation(zone, t)}`;
}

/**
 * Makes the formats of `zone` that a cluster's lanes and head use (local times, the clock, the zone's abbreviation), so that the frame drawing its first
 * lanes does not: the first format of a zone costs milliseconds (its rules and names are loaded), using one microseconds. Throws for a zone the browser
 * does not know, as those formats would.
 */
export function warmZone(zone: string, now: number): void {
  localTime(now, zone);
  hourMinute(now, zone);
}

/** An instant as the service writes it, `2026-11-23T07:00:00Z`: read as it is, without a Date. */
const WRITTEN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** `2026-11-23 07:00 UTC`. */
export function utcTime(iso: string | number): string {
  if (typeof iso === "string" && WRITTEN.test(iso)) return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  return `${new Date(iso).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** `3d 4h`, `2h 30m`, `45m`. */
export function length(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  return [d > 0 ? `${d}d` : "", h > 0 ? `${h}h` : "", m > 0 || minutes === 0 ? `${m}m` : ""].filter((s) => s !== "").join(" ");
}

/** `Mon 23 Nov` of a UTC day. */
export function utcDay(t: number): string {
  return formatOf("utc-day", () => new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", weekday: "short", day: "2-digit", month: "short" })).format(new Date(t));
}

/** The current time in a zone, e.g. `14:05 CET`. */
export function clock(now: number, zone: string): string {
  return hourMinute(now, zone);
}
