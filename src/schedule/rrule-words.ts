// An RFC 5545 recurrence rule in words ("the second Sunday of each month"), for the dashboard's editor, `explain` and `check`.

import { parseRecurrence, type RecurrenceRule, type WeekdayNum } from "./rrule.ts";

const DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const ORDINALS = ["", "first", "second", "third", "fourth", "fifth"];

/** 1 → "first", 21 → "21st", -1 → "last", -2 → "second-to-last". */
function ordinal(n: number): string {
  if (n < 0) return n === -1 ? "last" : `${ordinal(-n)}-to-last`;
  if (n < ORDINALS.length) return ORDINALS[n] as string;
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
}

/** "a", "a and b", "a, b and c" (or "or"). */
function listed(items: readonly string[], word = "and"): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} ${word} ${items[items.length - 1] as string}`;
}

/** Plain weekdays as people say them: Monday to Friday is "weekday", Saturday and Sunday "weekend day". */
function plainDays(days: readonly WeekdayNum[], word: string): string {
  const set = days.map((d) => d.weekday).sort((a, b) => a - b);
  if (set.join() === "0,1,2,3,4") return "weekday";
  if (set.join() === "5,6") return "weekend day";
  if (set.length === 7) return "day";
  return listed(
    set.map((d) => DAY_NAMES[d] as string),
    word,
  );
}

function weekdayNum(d: WeekdayNum): string {
  return d.ordinal === 0 ? (DAY_NAMES[d.weekday] as string) : `the ${ordinal(d.ordinal)} ${DAY_NAMES[d.weekday] as string}`;
}

function monthDay(n: number): string {
  return n < 0 ? `the ${ordinal(n)} day` : `day ${n}`;
}

/** Which months: "each month", "every other month", "every 3 months", or "March and November". */
function months(rule: RecurrenceRule, unit: "month" | "year"): string {
  if (rule.byMonth.length > 0) return listed(rule.byMonth.map((m) => MONTH_NAMES[m - 1] as string));
  return every(rule.interval, unit, "each");
}

/** "each week", "every other week", "every 3 weeks". */
function every(interval: number, unit: string, one = "every"): string {
  return interval === 1 ? `${one} ${unit}` : interval === 2 ? `every other ${unit}` : `every ${interval} ${unit}s`;
}

/** The days of a period a rule's BYxxx parts pick, before BYSETPOS: "the second Sunday", "day 15", "Monday and Friday". */
function picked(rule: RecurrenceRule): string | null {
  const parts: string[] = [];
  if (rule.byDay.length > 0) {
    parts.push(rule.byDay.every((d) => d.ordinal === 0) ? plainDays(rule.byDay, "or") : listed(rule.byDay.map(weekdayNum), "or"));
  }
  if (rule.byMonthDay.length > 0) parts.push(listed(rule.byMonthDay.map(monthDay), "or"));
  if (rule.byYearDay.length > 0) parts.push(`day ${listed(rule.byYearDay.map(String), "or")} of the year`);
  if (rule.byWeekNo.length > 0) parts.push(`in week ${listed(rule.byWeekNo.map(String), "or")}`);
  if (parts.length === 0) return null;
  // Several parts narrow each other down (RFC 5545): a Friday that is day 13.
  return parts.length === 1 ? (parts[0] as string) : `a ${parts[0] as string} that is ${parts.slice(1).join(", ")}`;
}

function core(rule: RecurrenceRule): string {
  const days = picked(rule);
  const inMonths = rule.byMonth.length > 0 ? ` in ${listed(rule.byMonth.map((m) => MONTH_NAMES[m - 1] as string))}` : "";
  if (rule.bySetPos.length > 0 && days !== null) {
    const period = rule.freq === "WEEKLY" ? every(rule.interval, "week", "each") : rule.freq === "DAILY" ? every(rule.interval, "day", "each") : "";
    const of =
      rule.freq === "MONTHLY" ? `of ${months(rule, "month")}` : rule.freq === "YEARLY" ? `of ${every(rule.interval, "year", "each")}${inMonths}` : period;
    return `the ${listed(rule.bySetPos.map(ordinal), "and")} ${days.startsWith("the ") ? `of ${days}` : days} ${of}`;
  }
  switch (rule.freq) {
    case "DAILY": {
      if (rule.byDay.length > 0 && rule.byMonthDay.length === 0 && rule.interval === 1) return `every ${plainDays(rule.byDay, "and")}${inMonths}`;
      return `${every(rule.interval, "day")}${days === null ? "" : ` that is ${days}`}${inMonths}`;
    }
    case "WEEKLY": {
      const on = rule.byDay.length === 0 ? " on dtstart's weekday" : ` on ${plainDays(rule.byDay, "and")}`;
      if (rule.interval === 1 && rule.byDay.length > 0) return `every ${plainDays(rule.byDay, "and")}${inMonths}`;
      return `${every(rule.interval, "week")}${on}${inMonths}`;
    }
    case "MONTHLY":
      if (days === null) return `${every(rule.interval, "month", "each")} on dtstart's day of the month${inMonths}`;
      return `${days} of ${months(rule, "month")}`;
    case "YEARLY": {
      const year = every(rule.interval, "year", "each");
      if (days === null) return rule.byMonth.length > 0 ? `dtstart's day of the month in ${months(rule, "year")}, ${year}` : `dtstart's day, ${year}`;
      if (rule.byMonth.length > 0 && rule.byYearDay.length === 0 && rule.byWeekNo.length === 0) return `${days} of ${months(rule, "year")}, ${year}`;
      const ofYear = rule.byDay.some((d) => d.ordinal !== 0) && rule.byMonth.length === 0 ? " of the year" : "";
      return `${days}${ofYear}${inMonths}, ${year}`;
    }
  }
}

/**
 * A rule in words, as a person would say it. Throws the parser's ScheduleError for a rule it refuses.
 *
 * @example describeRecurrence("FREQ=MONTHLY;BYDAY=2SU") // "the second Sunday of each month"
 * @example describeRecurrence("FREQ=WEEKLY;INTERVAL=2;BYDAY=TU") // "every other week on Tuesday"
 */
export function describeRecurrence(text: string): string {
  const rule = parseRecurrence(text);
  let words = core(rule);
  if (rule.count !== null) words += `, ${rule.count} time${rule.count === 1 ? "" : "s"}`;
  if (rule.until !== null) {
    const u = rule.until.text;
    words += `, until ${u.slice(0, 4)}-${u.slice(4, 6)}-${u.slice(6, 8)} ${u.slice(9, 11)}:${u.slice(11, 13)}${rule.until.utc ? " UTC" : " local"}`;
  }
  return words;
}
