/// <reference lib="dom" />
// Instants for people in the dashboard: local to a cluster's zone and in UTC, with durations.

const local = new Map<string, Intl.DateTimeFormat>();

/** `Mon 23 Nov, 08:00 CET` in `zone`. */
export function localTime(iso: string | number, zone: string): string {
  let format = local.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-GB", { timeZone: zone, weekday: "short", day: "2-digit", month: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short" });
    local.set(zone, format);
  }
  return format.format(new Date(iso));
}

/** `2026-11-23 07:00 UTC`. */
export function utcTime(iso: string | number): string {
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
  return new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", weekday: "short", day: "2-digit", month: "short" }).format(new Date(t));
}

/** The current time in a zone, e.g. `14:05 CET`. */
export function clock(now: number, zone: string): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short" }).format(new Date(now));
}
