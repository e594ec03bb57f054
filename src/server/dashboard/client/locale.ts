/// <reference lib="dom" />
// The browser's locale data for dates, loaded on a worker's thread (intl-warm.ts) as the page opens: on the page's thread a process's first date format was
// a task of 8 to 15 ms of CPU in Chromium, 20 to 40 ms of wall time on a busy machine and over 80 with its cores taken. The page loads this module with a
// script of its own, ahead of the app's modules, so the worker starts as soon as the page does; the app imports it (the same module) and makes its first
// formats once the data is loaded. A format made while the worker is still loading the data loads it again, on the page's thread
// (docs/performance-history.md, "The page's largest tasks made smaller").

/** Settles once the worker has loaded the data, or could not: then the page's first format loads it. */
export const localeData: Promise<void> = new Promise((resolve) => {
  try {
    const worker = new Worker(new URL("./intl-warm.js", import.meta.url), { type: "module" });
    const done = (): void => {
      worker.terminate();
      resolve();
    };
    worker.onmessage = done;
    worker.onerror = done;
  } catch {
    resolve();
  }
});
