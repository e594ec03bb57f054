/// <reference lib="dom" />
// A worker that loads the browser's locale and zone data (ICU's) off the page's thread: making a process's first date format costs 20 to 40 ms of one task
// in Chromium, and the data, once loaded, is the whole process's, so the page's first format then costs under a millisecond (main.ts waits for it).

// The formats the page makes first (time.ts): a UTC day, a local time with its hour and minute, and a zone's short name in both locales it reads.
new Intl.DateTimeFormat("en-GB", {
  timeZone: "UTC",
  weekday: "short",
  day: "2-digit",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
}).format(0);
for (const locale of ["en-GB", "en-US"]) new Intl.DateTimeFormat(locale, { timeZone: "Europe/Berlin", timeZoneName: "short" }).formatToParts(0);
postMessage("warm");

export {};
