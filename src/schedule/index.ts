// The time engine's public surface: pure functions over window timing, with `now` always passed in.

export { parseCron, nextWall, prevWall, type CronSchedule } from "./cron.ts";
export { parseDuration, formatLength, MAX_DURATION_MS } from "./duration.ts";
export { ScheduleError } from "./errors.ts";
export { Evaluator, MAX_SEGMENTS, type Decision, type OverrideInput, type Segment, type Stretches, type Transition, type WindowState } from "./evaluate.ts";
export {
  checkHolidayRegion,
  DEFAULT_HOLIDAY_TYPES,
  HOLIDAY_TYPES,
  holidayCountries,
  holidayLabelsUsed,
  holidaysOf,
  holidaySubdivisions,
  type ClusterContext,
  type HolidayDay,
  type HolidaysSpec,
  type HolidayType,
} from "./holidays.ts";
export { parseLocalDateTime } from "./localtime.ts";
export { Occurrences } from "./occurrences.ts";
export { compileRecurrence, parseDate, parseTimeOfDay, recurrenceWords, RecurrenceStarts, type RecurrenceSpec } from "./recurrence.ts";
export { NEVER_OCCURS, parseRecurrence, type RecurrenceRule } from "./rrule.ts";
export {
  compileWindow,
  timingProblems,
  type FreezeSpec,
  type CompiledWindow,
  type CompileOptions,
  type Interval,
  type RecurringSpec,
  type RuleRef,
  type WindowTiming,
} from "./window.ts";
export { zoneRules, ZoneRules } from "./zone.ts";
export { abbreviation, localDay, localTime, rfc3339, utcTime } from "./format.ts";
export { describeRecurrence } from "./rrule-words.ts";
