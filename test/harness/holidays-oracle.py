#!/usr/bin/env python3
"""Python's `holidays` package as an oracle for fluxgate's holiday freezes (test/unit/schedule/holidays.oracle.test.ts).

Reads one JSON request a line on stdin and writes one JSON answer a line on stdout, in order:
  {"country": "DE", "subdivision": "BY" | null, "years": [2026, ...]}
  -> {"ok": true, "version": "0.109", "days": [["2026-01-01", "Neujahr"], ...]} | {"ok": false, "error": "..."}
The days are the package's public holidays (its default category), observed days included (its
default), in date order; a day with several holidays is listed once per holiday.
"""
import json
import sys

try:
    import holidays
except ImportError:
    sys.stderr.write("the holidays package is missing\n")
    sys.exit(3)

for line in sys.stdin:
    request = json.loads(line)
    try:
        calendar = holidays.country_holidays(request["country"], subdiv=request.get("subdivision"), years=request["years"])
        days = sorted((day.isoformat(), name) for day, names in calendar.items() for name in calendar.get_list(day))
        answer = {"ok": True, "version": holidays.__version__, "days": days}
    except Exception as e:  # noqa: BLE001 - the test shows the package's message
        answer = {"ok": False, "error": f"{type(e).__name__}: {e}"}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
