/// <reference lib="dom" />
// A worker that loads the browser's locale and zone data (ICU's) off the page's thread: making a process's first date format costs 20 to 40 ms of one task
// in Chromium, and the data, once loaded, is the whole process's, so the page's first format then costs under a millisecond (locale.ts starts it; the
// page's first formats wait for it).

// A UTC day (the page's first format) and a zone's short name in both locales the page reads (time.ts): the locale's data and the zones' with their names.
new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", weekday: "short", day: "2-digit", month: "short" }).format(0);
for (const locale of ["en-GB", "en-US"]) new Intl.DateTimeFormat(locale, { timeZone: "Europe/Berlin", timeZoneName: "short" }).formatToParts(0);
postMessage("warm");

export {};
