// ReconciliationWindow and WindowOverride (fluxgate.io/v1alpha1): the one definition of their specs, as zod schemas.

import { z } from "zod";
import {
  checkHolidayRegion,
  HOLIDAY_TYPES,
  NEVER_OCCURS,
  parseCron,
  parseDate,
  parseDuration,
  parseLocalDateTime,
  parseRecurrence,
  parseTimeOfDay,
  ScheduleError,
  zoneRules,
} from "../schedule/index.ts";
import { cel, celRegex } from "./cel.ts";
import { MAX_REASON_LENGTH } from "./constants.ts";
import { TARGET_KINDS } from "./kinds.ts";
import { LabelSelectorSchema, NamespaceSchema, ObjectNameSchema } from "./kube-names.ts";
import { isLabelKey, LABEL_KEY, LABEL_KEY_MESSAGE, MAX_LABEL_KEY } from "./label-syntax.ts";

export const GROUP = "fluxgate.io";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;

/** Default of `spec.timeZone`; also the CRD's default. */
export const DEFAULT_TIME_ZONE = "UTC";
/** Default of `spec.mode`; also the CRD's default. */
export const DEFAULT_MODE = "Suspend";
/** Default of `spec.closeGracePeriod`; also the CRD's default. */
export const DEFAULT_CLOSE_GRACE_PERIOD = "5m";
/** What a closed Suspend window does when another manager sets a target's spec.suspend back (`spec.onRevert`). */
export const ON_REVERT = ["Hold", "Reassert"] as const;
/** Default of `spec.onRevert`; also the CRD's default. */
export const DEFAULT_ON_REVERT = "Hold";

/** Adds a zod issue when a time-engine parser rejects the value. */
function engineCheck(parse: (value: string) => unknown) {
  return (value: string, ctx: z.RefinementCtx): void => {
    try {
      parse(value);
    } catch (e) {
      if (!(e instanceof ScheduleError)) throw e;
      ctx.addIssue({ code: "custom", message: e.detail });
    }
  };
}

// The shapes below are what the API server can check without the time engine (CEL has no cron or zone
// database); the engine's checks above give the precise message for everything else.
// A cron field is a list of values, ranges and steps; month and day of week may use three-letter names.
// The shape admits all that CronJob's parser (robfig/cron) admits: "?" as "*", whatever follows
// "*-" (which it does not read), a "+" sign, empty list items; the engine refuses the rest precisely.
const STAR_TERM = String.raw`[*?](-[^\s,/]*)?(/\+?\d+)?`;
const NUMERIC_TERM = String.raw`(${STAR_TERM}|\+?\d+(-\+?\d+)?(/\+?\d+)?)`;
const NAMED_TERM = String.raw`(${STAR_TERM}|(\+?\d+|[A-Za-z]{3})(-(\+?\d+|[A-Za-z]{3}))?(/\+?\d+)?)`;
const list = (term: string): string => `,*${term}(,+${term})*,*`;
const CRON_SHAPE = new RegExp(String.raw`^\s*(@[A-Za-z]+|${list(NUMERIC_TERM)}(\s+${list(NUMERIC_TERM)}){2}(\s+${list(NAMED_TERM)}){2})\s*$`);
const DURATION_SHAPE = /^\s*\+?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+\s*$/;
const ZERO_DURATION = /^\s*\+?((0+(\.0*)?|\.0+)(ns|us|µs|μs|ms|s|m|h))+\s*$/;
/** Durations CEL's duration() reads without overflowing int64 nanoseconds (at most 64 characters of such terms). */
const DURATION_IN_CEL_RANGE = /^\+?(\d{1,5}(\.\d*)?h|\d{1,7}(\.\d*)?(ns|us|µs|μs|ms|s|m))+$/;
/** A term that alone is longer than 366 days: too many digits for its unit. */
const HUGE_DURATION_TERM =
  /(^|[^.\d])0*([1-9]\d{5,}(\.\d*)?h|[1-9]\d{7,}(\.\d*)?m|[1-9]\d{9,}(\.\d*)?s|[1-9]\d{12,}(\.\d*)?ms|[1-9]\d{15,}(\.\d*)?(us|µs|μs)|[1-9]\d{18,}(\.\d*)?ns)/;
const TOO_LONG_MESSAGE = "is longer than 366 days (8784h)";
const ZONE_SHAPE = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;
const LOCAL_DATE_TIME_SHAPE = /^\s*\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])([T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)?\s*$/;
/** Local date-times that sort as text in time order: no offset, `T`, the same length. */
const LOCAL_SORTABLE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$/;

const cron = z
  .string()
  .max(256)
  .superRefine(engineCheck(parseCron))
  .meta({
    description: 'Cron expression in Kubernetes CronJob syntax, read in the window\'s time zone, e.g. "0 8 * * MON".',
    ...cel({
      rule: `self.matches(${celRegex(CRON_SHAPE)})`,
      message:
        'must be a cron expression with 5 fields (minute hour day-of-month month day-of-week) of values, ranges, lists and steps, with names (MON, JAN) only in month and day of week, e.g. "0 8 * * MON", or a macro such as @daily; seconds, L, W and # are not supported',
    }),
  });

const duration = z
  .string()
  .max(64)
  .superRefine(engineCheck(parseDuration))
  .meta({
    description: 'Go-style duration of elapsed time, e.g. "2h", "90m", "1h30m".',
    ...cel(
      { rule: `self.matches(${celRegex(DURATION_SHAPE)})`, message: 'must be a positive Go duration with units h, m, s, ms, e.g. "2h", "90m" or "1h30m"' },
      { rule: `!self.matches(${celRegex(ZERO_DURATION)})`, message: "is zero: a window must last a positive time" },
      { rule: `!self.matches(${celRegex(DURATION_IN_CEL_RANGE)}) || duration(self) <= duration('8784h')`, message: TOO_LONG_MESSAGE },
      { rule: `!self.matches(${celRegex(HUGE_DURATION_TERM)})`, message: TOO_LONG_MESSAGE },
    ),
  });

/** The longest `spec.notice`: a week ahead is as far as anyone plans a deployment announcement. */
export const MAX_NOTICE = "168h";
/** A term that alone is longer than MAX_NOTICE (minutes are told from milliseconds by what follows the m). */
const HUGE_NOTICE_TERM =
  /(^|[^.\d])0*([1-9]\d{3,}(\.\d*)?h|[1-9]\d{5,}(\.\d*)?m([\d.]|\s*$)|[1-9]\d{6,}(\.\d*)?s|[1-9]\d{9,}(\.\d*)?ms|[1-9]\d{12,}(\.\d*)?(us|µs|μs)|[1-9]\d{15,}(\.\d*)?ns)/;
const NOTICE_WORDS = 'give a positive lead time such as "15m" or "2h", or leave notice out';

/** Checks a lead time: the engine's reading of a duration, in words about a notice, at most MAX_NOTICE. */
function checkNotice(value: string, ctx: z.RefinementCtx): void {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (e) {
    if (!(e instanceof ScheduleError)) throw e;
    const sign = /is (zero|negative)/.exec(e.detail)?.[1];
    ctx.addIssue({ code: "custom", message: sign === undefined ? e.detail : `duration "${value}" is ${sign}: ${NOTICE_WORDS}` });
    return;
  }
  if (ms > parseDuration(MAX_NOTICE)) ctx.addIssue({ code: "custom", message: `duration "${value}" is longer than 7 days (${MAX_NOTICE})` });
}

const notice = z
  .string()
  .max(64)
  .superRefine(checkNotice)
  .meta({
    description: `How long before the window opens, or a freeze starts, the controller announces it: a WindowOpensSoon or FreezeStartsSoon event naming, per target, the revision that will go out (or that nothing waits). A Go-style duration, at most ${MAX_NOTICE} (7 days), e.g. "15m". No announcement when absent.`,
    ...cel(
      { rule: `self.matches(${celRegex(DURATION_SHAPE)})`, message: 'must be a positive Go duration with units h, m, s, ms, e.g. "15m" or "2h"' },
      { rule: `!self.matches(${celRegex(ZERO_DURATION)})`, message: `is zero: ${NOTICE_WORDS}` },
      {
        rule: `!self.matches(${celRegex(DURATION_IN_CEL_RANGE)}) || duration(self) <= duration('${MAX_NOTICE}')`,
        message: `is longer than 7 days (${MAX_NOTICE})`,
      },
      { rule: `!self.matches(${celRegex(HUGE_NOTICE_TERM)})`, message: `is longer than 7 days (${MAX_NOTICE})` },
    ),
  });

const timeZone = z
  .string()
  .max(64)
  .superRefine(engineCheck(zoneRules))
  .meta({
    description: 'IANA time zone in which cron expressions and local date-times are read, e.g. "Europe/Berlin".',
    ...cel({ rule: `self.matches(${celRegex(ZONE_SHAPE)})`, message: 'must be an IANA time zone name such as "Europe/Berlin" or "UTC"' }),
  });

const localDateTime = z
  .string()
  .max(64)
  .superRefine(engineCheck((v) => parseLocalDateTime(v, zoneRules(DEFAULT_TIME_ZONE))))
  .meta({
    description: 'Date-time local to the window\'s time zone, e.g. "2026-12-20T00:00"; an explicit offset ("+01:00", "Z") may be given.',
    ...cel({
      rule: `self.matches(${celRegex(LOCAL_DATE_TIME_SHAPE)})`,
      message: 'must be a date-time such as "2026-12-20T00:00" (local to the window\'s time zone), optionally with an offset such as "+01:00"',
    }),
  });

// An RFC 5545 rule as NAME=VALUE parts; the CEL rules refuse the sub-minute parts by name, the engine the rest.
const RRULE_SHAPE = /^\s*([Rr][Rr][Uu][Ll][Ee]:)?[A-Za-z]+=[^;=\s]+(;[A-Za-z]+=[^;=\s]+)*\s*$/;
const RRULE_PART = (name: string, value = "[^;]*"): RegExp => new RegExp(String.raw`(?i:(^|;|:)\s*${name}\s*=\s*${value}\s*(;|$))`);
const TIME_OF_DAY_SHAPE = /^([01]\d|2[0-3]):[0-5]\d$/;
const DATE_SHAPE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const EXDATE_SHAPE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d)?$/;
const MINUTE_PRECISION = "is not allowed: a window is at minute precision";
/** Rules that never occur which CEL can see: only February, and only days 30 or 31 of it (or their negatives); only 30-day months, and only day 31. */
const FEBRUARY_ONLY = String.raw`\+?0*2`;
const DAYS_30_31 = String.raw`[+-]?0*3[01](,[+-]?0*3[01])*`;
const SHORT_MONTHS_ONLY = String.raw`\+?0*(4|6|9|11)(,\+?0*(4|6|9|11))*`;
const DAY_31 = String.raw`[+-]?0*31(,[+-]?0*31)*`;

const recurrence = z
  .string()
  .max(512)
  .superRefine(engineCheck(parseRecurrence))
  .meta({
    description:
      'RFC 5545 recurrence rule picking the days an interval starts on, e.g. "FREQ=MONTHLY;BYDAY=2SU" (the second Sunday of each month): FREQ DAILY, WEEKLY, MONTHLY or YEARLY with INTERVAL, COUNT, UNTIL, BYMONTH, BYWEEKNO, BYYEARDAY, BYMONTHDAY, BYDAY, BYSETPOS, WKST.',
    ...cel(
      {
        rule: `self.matches(${celRegex(RRULE_SHAPE)})`,
        message: 'must be an RFC 5545 recurrence rule: parts NAME=VALUE separated by ";", e.g. "FREQ=MONTHLY;BYDAY=2SU"',
      },
      { rule: `self.matches(${celRegex(RRULE_PART("FREQ"))})`, message: 'FREQ is required, e.g. "FREQ=WEEKLY;BYDAY=TU"' },
      { rule: `!self.matches(${celRegex(RRULE_PART("BYSECOND"))})`, message: `BYSECOND ${MINUTE_PRECISION}` },
      { rule: `!self.matches(${celRegex(RRULE_PART("FREQ", "SECONDLY"))})`, message: `FREQ=SECONDLY ${MINUTE_PRECISION}` },
      {
        rule: `!(self.matches(${celRegex(RRULE_PART("BYMONTH", FEBRUARY_ONLY))}) && self.matches(${celRegex(RRULE_PART("BYMONTHDAY", DAYS_30_31))}))`,
        message: NEVER_OCCURS,
      },
      {
        rule: `!(self.matches(${celRegex(RRULE_PART("BYMONTH", SHORT_MONTHS_ONLY))}) && self.matches(${celRegex(RRULE_PART("BYMONTHDAY", DAY_31))}))`,
        message: NEVER_OCCURS,
      },
    ),
  });

const timeOfDay = z
  .string()
  .max(5)
  .superRefine(engineCheck(parseTimeOfDay))
  .meta({
    description: 'Local time of day in the window\'s time zone, "HH:MM" (24-hour), e.g. "02:00".',
    ...cel({ rule: `self.matches(${celRegex(TIME_OF_DAY_SHAPE)})`, message: 'must be a time of day such as "02:00" or "17:30" (24-hour)' }),
  });

const recurrenceFields = {
  recurrence: recurrence.optional(),
  at: timeOfDay.optional().meta({ description: "With recurrence: the local time each interval starts. Required with recurrence." }),
  endAt: timeOfDay
    .optional()
    .meta({ description: "With recurrence: the local time each interval ends, the first such time after its start. Exactly one of endAt and duration." }),
  dtstart: z
    .string()
    .max(10)
    .superRefine(engineCheck(parseDate))
    .optional()
    .meta({
      description:
        'With recurrence: its first date (local), from which INTERVAL and COUNT count, e.g. "2026-01-06"; needed by rules that take their day from it.',
      ...cel({ rule: `self.matches(${celRegex(DATE_SHAPE)})`, message: 'must be a date such as "2026-01-06"' }),
    }),
  exdates: z
    .array(
      z
        .string()
        .max(16)
        .meta({
          description: 'A local date (that day\'s interval) or date-time (that start, "2026-12-13T02:00") the recurrence leaves out.',
          ...cel({
            rule: `self.matches(${celRegex(EXDATE_SHAPE)})`,
            message: 'must be a date such as "2026-12-13" or a local date-time such as "2026-12-13T02:00"',
          }),
        }),
    )
    .max(366)
    .optional()
    .meta({ description: "With recurrence: dates or date-times left out (RFC 5545 EXDATE)." }),
};

const RECURRENCE_ONLY = ["at", "endAt", "dtstart", "exdates"] as const;
const MIXED_KINDS = "mixes a cron schedule (start, end) with a recurrence: give one kind";
const RECURRENCE_LENGTH = 'needs a duration (e.g. "4h") or an endAt time of day (e.g. "06:00")';

/** The checks of an entry that gives a recurrence (or must not, having none): the same words as the engine's. */
function checkRecurrenceEntry(
  s: { start?: string | undefined; end?: string | undefined; duration?: string | undefined } & { [K in keyof typeof recurrenceFields]?: unknown },
  ctx: z.RefinementCtx,
): void {
  if (s.recurrence === undefined) {
    for (const k of RECURRENCE_ONLY) if (s[k] !== undefined) ctx.addIssue({ code: "custom", path: [k], message: "is only used with recurrence" });
    return;
  }
  if (s.start !== undefined || s.end !== undefined) ctx.addIssue({ code: "custom", message: MIXED_KINDS });
  if (s.at === undefined)
    ctx.addIssue({ code: "custom", path: ["at"], message: 'is required with recurrence: the local time each occurrence starts, e.g. "02:00"' });
  if (s.endAt !== undefined && s.duration !== undefined) ctx.addIssue({ code: "custom", message: "has both endAt and duration: give exactly one" });
  if (s.endAt === undefined && s.duration === undefined) ctx.addIssue({ code: "custom", message: RECURRENCE_LENGTH });
}

/** The same checks for the API server. */
const RECURRENCE_CEL = [
  { rule: "!(has(self.recurrence) && (has(self.start) || has(self.end)))", message: MIXED_KINDS },
  {
    rule: "!has(self.recurrence) || has(self.at)",
    fieldPath: ".at",
    message: 'is required with recurrence: the local time each occurrence starts, e.g. "02:00"',
  },
  { rule: "!(has(self.endAt) && has(self.duration))", message: "has both endAt and duration: give exactly one" },
  { rule: "!has(self.recurrence) || has(self.endAt) || has(self.duration)", message: RECURRENCE_LENGTH },
  ...RECURRENCE_ONLY.map((k) => ({ rule: `has(self.recurrence) || !has(self.${k})`, fieldPath: `.${k}`, message: "is only used with recurrence" })),
];

/**
 * An allow schedule: the window is open from each `start` occurrence for `duration`, or until the
 * next `end` occurrence; or from `at` on each day a `recurrence` picks, for `duration` or until `endAt`.
 */
export const ScheduleSchema = z
  .strictObject({
    start: cron.optional().meta({ description: "When each open interval starts (cron). Exactly one of start and recurrence." }),
    end: cron
      .optional()
      .meta({ description: "When it ends: the first occurrence strictly after the start (cron, wall-clock). Exactly one of end and duration." }),
    duration: duration.optional().meta({ description: "How long it lasts (elapsed time). Exactly one of end (or endAt) and duration." }),
    ...recurrenceFields,
  })
  .superRefine((s, ctx) => {
    checkRecurrenceEntry(s, ctx);
    if (s.recurrence !== undefined) return;
    if (s.start === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["start"],
        message: 'is required: a cron expression such as "0 8 * * MON" (or give a recurrence such as "FREQ=MONTHLY;BYDAY=2SU" with at)',
      });
    if (s.end !== undefined && s.duration !== undefined) ctx.addIssue({ code: "custom", message: "has both end and duration: give exactly one" });
    if (s.end === undefined && s.duration === undefined) ctx.addIssue({ code: "custom", message: 'needs an end (cron) or a duration (e.g. "2h")' });
  })
  .meta(
    cel(
      { rule: "!(has(self.end) && has(self.duration))", message: "has both end and duration: give exactly one" },
      { rule: "has(self.recurrence) || has(self.end) || has(self.duration)", message: 'needs an end (cron) or a duration (e.g. "2h")' },
      {
        rule: "has(self.start) || has(self.recurrence)",
        fieldPath: ".start",
        message: 'is required: a cron expression such as "0 8 * * MON" (or give a recurrence such as "FREQ=MONTHLY;BYDAY=2SU" with at)',
      },
      ...RECURRENCE_CEL,
    ),
  );

const reason = z.string().min(1).max(MAX_REASON_LENGTH).meta({ description: "Why changes are held, shown in status, events and the CLI." });

const ONE_KIND = "mixes a recurring freeze (start, end, duration, recurrence) with a one-off freeze (from, to): give one kind";
const NO_KIND = "needs start with end or duration (recurring), a recurrence with at, from and to (one-off), or holidays";
const HOLIDAYS_ALONE =
  "mixes a holiday freeze with another kind (start, end, duration, recurrence, from, to): a holiday freeze is whole days, give holidays alone";
const HOLIDAYS_SOURCE = 'needs country (a code such as "DE") or fromClusterLabels, not both';
const COUNTRY_SHAPE = /^[A-Z]{2}$/;
const SUBDIVISION_SHAPE = /^[A-Za-z0-9]{1,16}$/;
const COUNTRY_MESSAGE = 'must be an ISO 3166-1 alpha-2 country code in capitals, such as "DE" or "US"';
const SUBDIVISION_MESSAGE = 'must be a subdivision code within the country (ISO 3166-2 without the country), such as "BY" or "QC"';

const labelKeyName = (what: string) =>
  z
    .string()
    .min(1)
    .max(MAX_LABEL_KEY)
    .refine((k) => k.length === 0 || k.length > MAX_LABEL_KEY || isLabelKey(k), LABEL_KEY_MESSAGE)
    .meta({
      description: `The name of the cluster label (fluxgate.yaml) whose value is the ${what} code.`,
      ...cel({ rule: `self.matches(${celRegex(LABEL_KEY)})`, message: LABEL_KEY_MESSAGE }),
    });

/** The public holidays of a country or subdivision (date-holidays, at the version package.json pins), whole local days of the window's zone. */
export const HolidaysSchema = z
  .strictObject({
    country: z
      .string()
      .max(8)
      // The library's own list, with the closest codes ("Germany": did you mean "DE"?); the API server checks the shape.
      .superRefine(engineCheck((c) => checkHolidayRegion(c, undefined, "")))
      .optional()
      .meta({
        description: 'ISO 3166-1 alpha-2 code of the country whose holidays freeze, e.g. "DE". Exactly one of country and fromClusterLabels.',
        ...cel({ rule: `self.matches(${celRegex(COUNTRY_SHAPE)})`, message: COUNTRY_MESSAGE }),
      }),
    subdivision: z
      .string()
      .max(16)
      .refine((c) => SUBDIVISION_SHAPE.test(c), SUBDIVISION_MESSAGE)
      .optional()
      .meta({
        description: 'With country: the subdivision (state, province) whose holidays are added, its code without the country, e.g. "BY" for Bavaria.',
        ...cel({ rule: `self.matches(${celRegex(SUBDIVISION_SHAPE)})`, message: SUBDIVISION_MESSAGE }),
      }),
    types: z
      .array(z.enum(HOLIDAY_TYPES).meta({ description: "A holiday type of date-holidays." }))
      .min(1)
      .max(HOLIDAY_TYPES.length)
      .optional()
      .meta({ description: `Which holidays freeze: ${HOLIDAY_TYPES.join(", ")}; default public only.` }),
    fromClusterLabels: z
      .strictObject({
        country: labelKeyName("country"),
        subdivision: labelKeyName("subdivision")
          .optional()
          .meta({ description: "The name of the cluster label whose value is the subdivision code; an empty value means the whole country." }),
      })
      .optional()
      .meta({
        description:
          "In a fleet window: take the country (and subdivision) from these labels of each cluster (fluxgate.yaml), so one window gives each cluster its own holidays. A cluster without the label is refused, never given no holidays.",
      }),
  })
  .superRefine((h, ctx) => {
    if ((h.country === undefined) === (h.fromClusterLabels === undefined)) ctx.addIssue({ code: "custom", message: HOLIDAYS_SOURCE });
    if (h.subdivision !== undefined && h.country === undefined) ctx.addIssue({ code: "custom", path: ["subdivision"], message: "is only used with country" });
  })
  .meta(
    cel(
      { rule: "has(self.country) != has(self.fromClusterLabels)", message: HOLIDAYS_SOURCE },
      { rule: "!has(self.subdivision) || has(self.country)", fieldPath: ".subdivision", message: "is only used with country" },
    ),
  );

/**
 * A freeze: recurring (`start` with `end` or `duration`, or a `recurrence`), one-off (`from`, `to`)
 * or public holidays (`holidays`). Freezes beat allow schedules.
 */
export const FreezeSchema = z
  .strictObject({
    start: cron.optional().meta({ description: "Recurring freeze: when each frozen interval starts (cron)." }),
    end: cron.optional().meta({ description: "Recurring freeze: when it ends (cron). Exactly one of end and duration." }),
    duration: duration.optional().meta({ description: "Recurring freeze: how long it lasts. Exactly one of end and duration." }),
    from: localDateTime.optional().meta({ description: "One-off freeze: when it starts (local date-time)." }),
    to: localDateTime.optional().meta({ description: "One-off freeze: when it ends (local date-time), after from." }),
    ...recurrenceFields,
    holidays: HolidaysSchema.optional().meta({
      description: 'Public holidays: each a whole local day of the window\'s zone, named in status, previews and calendars (e.g. "Fronleichnam").',
    }),
    reason: reason.optional(),
    uid: z.string().min(1).max(255).optional().meta({
      description:
        "The UID of the calendar event this freeze was imported from (fluxgate freeze import); importing the calendar again replaces the freeze with this UID instead of adding another.",
    }),
  })
  .superRefine((f, ctx) => {
    const recurring = f.start !== undefined || f.end !== undefined || f.duration !== undefined || f.recurrence !== undefined;
    const oneOff = f.from !== undefined || f.to !== undefined;
    if (f.holidays !== undefined) {
      if (recurring || oneOff || RECURRENCE_ONLY.some((k) => f[k] !== undefined)) ctx.addIssue({ code: "custom", message: HOLIDAYS_ALONE });
    } else if (recurring && oneOff) {
      ctx.addIssue({ code: "custom", message: ONE_KIND });
    } else if (f.recurrence !== undefined || RECURRENCE_ONLY.some((k) => f[k] !== undefined)) {
      checkRecurrenceEntry(f, ctx);
    } else if (oneOff) {
      if (f.from === undefined) ctx.addIssue({ code: "custom", path: ["from"], message: "is required with to" });
      if (f.to === undefined) ctx.addIssue({ code: "custom", path: ["to"], message: "is required with from" });
    } else if (f.start === undefined) {
      ctx.addIssue({ code: "custom", message: NO_KIND });
    } else if ((f.end === undefined) === (f.duration === undefined)) {
      ctx.addIssue({
        code: "custom",
        message: f.end === undefined ? 'needs an end (cron) or a duration (e.g. "24h")' : "has both end and duration: give exactly one",
      });
    }
  })
  .meta(
    cel(
      { rule: "!((has(self.start) || has(self.end) || has(self.duration) || has(self.recurrence)) && (has(self.from) || has(self.to)))", message: ONE_KIND },
      { rule: "has(self.start) || has(self.recurrence) || has(self.from) || has(self.to) || has(self.holidays)", message: NO_KIND },
      {
        rule: "!has(self.holidays) || !(has(self.start) || has(self.end) || has(self.duration) || has(self.recurrence) || has(self.from) || has(self.to) || has(self.at) || has(self.endAt) || has(self.dtstart) || has(self.exdates))",
        message: HOLIDAYS_ALONE,
      },
      {
        rule: "!has(self.start) || has(self.end) || has(self.duration) || has(self.from) || has(self.to)",
        message: 'needs an end (cron) or a duration (e.g. "24h")',
      },
      { rule: "!(has(self.end) && has(self.duration))", message: "has both end and duration: give exactly one" },
      ...RECURRENCE_CEL,
      { rule: "!has(self.to) || has(self.from)", fieldPath: ".from", message: "is required with to" },
      { rule: "!has(self.from) || has(self.to)", fieldPath: ".to", message: "is required with from" },
      {
        // Only where text order is time order; the engine checks the rest (offsets, mixed precision).
        rule: `!(has(self.from) && has(self.to)) || size(self.from) != size(self.to) || !self.from.matches(${celRegex(LOCAL_SORTABLE)}) || !self.to.matches(${celRegex(LOCAL_SORTABLE)}) || self.from < self.to`,
        fieldPath: ".to",
        message: "must be after from: a freeze must end after it starts",
      },
    ),
  );

const GATED_NAME_MESSAGE = "must differ from upstream.name: fluxgate creates and pins the gated copy, which cannot be the upstream source itself";

/** A Flux object (or a set of them, by labels) the window governs. */
export const TargetSchema = z
  .strictObject({
    kind: z.enum(TARGET_KINDS).meta({ description: "Kind of the Flux object." }),
    name: ObjectNameSchema.optional().meta({ description: "Name of one object. Exactly one of name and labelSelector." }),
    labelSelector: LabelSelectorSchema.optional().meta({ description: "Selects objects by label. Exactly one of name and labelSelector." }),
    namespace: NamespaceSchema.optional().meta({ description: "Namespace of the objects; defaults to the window's." }),
  })
  .superRefine((t, ctx) => {
    if ((t.name === undefined) === (t.labelSelector === undefined)) {
      ctx.addIssue({ code: "custom", message: t.name === undefined ? "needs a name or a labelSelector" : "has both name and labelSelector: give exactly one" });
    }
  })
  .meta(
    cel(
      { rule: "!(has(self.name) && has(self.labelSelector))", message: "has both name and labelSelector: give exactly one" },
      { rule: "has(self.name) || has(self.labelSelector)", message: "needs a name or a labelSelector" },
    ),
  );

/** The timing part of a window: what the time engine reads. */
export const WindowTimingSchema = z.strictObject({
  timeZone: timeZone.optional().meta({ description: `IANA time zone; default "${DEFAULT_TIME_ZONE}".`, default: DEFAULT_TIME_ZONE }),
  schedules: z.array(ScheduleSchema).max(64).optional().meta({ description: "Allow intervals: the window is open while any is active." }),
  freezes: z.array(FreezeSchema).max(64).optional().meta({ description: "Deny intervals: they beat any allow interval." }),
});

export const ReconciliationWindowSpecSchema = WindowTimingSchema.extend({
  targets: z.array(TargetSchema).min(1).max(64).meta({ description: "What the window governs." }),
  clusterSelector: LabelSelectorSchema.optional().meta({
    description:
      "A fleet window: the clusters it is for, by the labels of the cluster's identity (the ConfigMap flux-system/fluxgate-cluster that fluxgate init writes). On a cluster whose labels do not match, the window governs nothing; on a cluster whose identity cannot be confirmed, none of its schedules opens (its freezes hold). Absent: the window is the cluster's own.",
  }),
  mode: z
    .enum(["Suspend", "Gate"])
    .optional()
    .meta({
      description: `Suspend (own spec.suspend of each target) or Gate (hold the revision, keep healing); default ${DEFAULT_MODE}.`,
      default: DEFAULT_MODE,
    }),
  gate: z
    .strictObject({
      upstream: z
        .strictObject({
          kind: z.enum(["GitRepository", "OCIRepository"]).meta({ description: "Kind of the upstream source." }),
          name: ObjectNameSchema.meta({ description: "Name of the upstream source, in the window's namespace." }),
        })
        .meta({ description: "The source that tracks the branch or tag." }),
      gatedName: ObjectNameSchema.meta({ description: "Name of the gated source fluxgate creates and pins; targets use it as their sourceRef." }),
    })
    .superRefine((g, ctx) => {
      if (g.gatedName === g.upstream.name) ctx.addIssue({ code: "custom", path: ["gatedName"], message: GATED_NAME_MESSAGE });
    })
    .meta(cel({ rule: "self.gatedName != self.upstream.name", fieldPath: ".gatedName", message: GATED_NAME_MESSAGE }))
    .optional()
    .meta({ description: "Only for mode Gate: the upstream source and the name of the gated copy fluxgate creates and pins." }),
  closeGracePeriod: duration.optional().meta({
    description: `How long a close waits for an in-flight reconciliation; default ${DEFAULT_CLOSE_GRACE_PERIOD}.`,
    default: DEFAULT_CLOSE_GRACE_PERIOD,
  }),
  notice: notice.optional(),
  onRevert: z
    .enum(ON_REVERT)
    .optional()
    .meta({
      description: `Mode Suspend: what a closed window does when another manager sets a target's spec.suspend back. Hold: set it again at once and, when the target's parent Kustomization declares spec.suspend in Git, disable the parent's reconcile of that target (annotation kustomize.toolkit.fluxcd.io/reconcile: disabled) until the window opens. Reassert: only set it again at once; a revision may slip through between a revert and the re-assert. Default ${DEFAULT_ON_REVERT}.`,
      default: DEFAULT_ON_REVERT,
    }),
})
  .superRefine((s, ctx) => {
    if (s.mode === "Gate" && s.gate === undefined) ctx.addIssue({ code: "custom", path: ["gate"], message: "is required when mode is Gate" });
    if (s.mode !== "Gate" && s.gate !== undefined) ctx.addIssue({ code: "custom", path: ["gate"], message: "is only allowed when mode is Gate" });
  })
  .meta(
    cel(
      { rule: "!has(self.mode) || self.mode != 'Gate' || has(self.gate)", fieldPath: ".gate", message: "is required when mode is Gate" },
      { rule: "!has(self.gate) || (has(self.mode) && self.mode == 'Gate')", fieldPath: ".gate", message: "is only allowed when mode is Gate" },
    ),
  );

/** The metadata fluxgate reads of its own objects (windows and overrides); the API server checks the rest. */
export const MetadataSchema = z.looseObject({
  name: z.string().min(1).max(253),
  namespace: z.string().min(1).max(63).optional(),
});

export const ReconciliationWindowSchema = z.looseObject({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal("ReconciliationWindow"),
  metadata: MetadataSchema,
  spec: ReconciliationWindowSpecSchema,
});

export type WindowTimingSpec = z.infer<typeof WindowTimingSchema>;
export type ReconciliationWindowSpec = z.infer<typeof ReconciliationWindowSpecSchema>;
export type ReconciliationWindow = z.infer<typeof ReconciliationWindowSchema>;

/** Default of `spec.timeZone`. */
export function timeZoneOf(spec: WindowTimingSpec): string {
  return spec.timeZone ?? DEFAULT_TIME_ZONE;
}

/** Default of `spec.mode`. */
export function modeOf(spec: ReconciliationWindowSpec): "Suspend" | "Gate" {
  return spec.mode ?? DEFAULT_MODE;
}

/** Default of `spec.onRevert`. */
export function onRevertOf(spec: ReconciliationWindowSpec): (typeof ON_REVERT)[number] {
  return spec.onRevert ?? DEFAULT_ON_REVERT;
}

/** `spec.notice` in milliseconds, or null when the window announces nothing ahead. */
export function noticeOf(spec: ReconciliationWindowSpec): number | null {
  return spec.notice === undefined ? null : parseDuration(spec.notice);
}

/** Default of `spec.closeGracePeriod`, in milliseconds. */
export function closeGracePeriodOf(spec: ReconciliationWindowSpec): number {
  return parseDuration(spec.closeGracePeriod ?? DEFAULT_CLOSE_GRACE_PERIOD);
}
