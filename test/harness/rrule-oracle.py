#!/usr/bin/env python3
"""python-dateutil's rrule as an oracle for fluxgate's recurrence rules (test/unit/schedule/rrule.oracle.test.ts).

Reads one JSON request a line on stdin and writes one JSON answer a line on stdout, in order:
  {"rules": ["FREQ=...", ...], "zone": "Europe/Berlin", "dtstart": "2026-03-01T02:30",
   "untilLocal": "2027-01-01T00:00:00" | null, "exdates": ["2026-03-08T02:30"], "count": 50, "end": <epoch ms>}
  -> {"ok": true, "times": [<epoch ms>, ...], "timedOut": false} | {"ok": false, "error": "..."}
or {"zone": "Europe/Berlin", "offsetsAt": [<epoch ms>, ...]} -> {"ok": true, "offsets": [<ms east of UTC>, ...]}.
Times are the first `count` occurrences of the rules (their union) from dtstart, up to `end`, each
a local date-time of the zone (zoneinfo, fold=0) converted to an instant.
"""
import json
import signal
import sys
from datetime import datetime
from zoneinfo import ZoneInfo

try:
    from dateutil import rrule
except ImportError:
    sys.stderr.write("python-dateutil is missing: pip install python-dateutil\n")
    sys.exit(3)


class TimedOut(Exception):
    pass


def on_alarm(_signum, _frame):
    raise TimedOut()


signal.signal(signal.SIGALRM, on_alarm)

# dateutil walks a rule that picks no day (or no more) up to year 9999, period by period: nothing,
# UNTIL included, stops it earlier. Each case lowers its bound to the year after `end`, past which
# nothing is compared anyway.
MAXYEAR = rrule.datetime.MAXYEAR


def answer(case):
    zone = ZoneInfo(case["zone"])
    if "offsetsAt" in case:
        at = [datetime.fromtimestamp(ms / 1000, tz=zone) for ms in case["offsetsAt"]]
        return {"ok": True, "offsets": [round(d.utcoffset().total_seconds() * 1000) for d in at]}
    start = datetime.fromisoformat(case["dtstart"]).replace(tzinfo=zone)
    rules = rrule.rruleset()
    for text in case["rules"]:
        rule = rrule.rrulestr(text, dtstart=start)
        if case.get("untilLocal"):
            rule = rule.replace(until=datetime.fromisoformat(case["untilLocal"]).replace(tzinfo=zone))
        rules.rrule(rule)
    for x in case.get("exdates", []):
        rules.exdate(datetime.fromisoformat(x).replace(tzinfo=zone))
    rrule.datetime.MAXYEAR = min(MAXYEAR, datetime.utcfromtimestamp(case["end"] / 1000).year + 1)
    times = []
    timed_out = False
    # A guard: no case should take this long.
    signal.setitimer(signal.ITIMER_REAL, 10.0)
    try:
        for occurrence in rules:
            ms = round(occurrence.timestamp() * 1000)
            if ms > case["end"]:
                break
            times.append(ms)
            if len(times) >= case["count"]:
                break
    except TimedOut:
        timed_out = True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return {"ok": True, "times": times, "timedOut": timed_out}


for line in sys.stdin:
    try:
        result = answer(json.loads(line))
    except Exception as e:  # an answer for every request: the client pairs them by order
        result = {"ok": False, "error": f"{type(e).__name__}: {e}"}
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
