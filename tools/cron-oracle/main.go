// Command cron-oracle answers, for the fluxgate test suite, what a Kubernetes CronJob accepts and when it runs.
//
// It reads one JSON request per line on stdin and writes one JSON answer per line on stdout, in
// order, so that a test can send thousands of cases to one process. Acceptance is Kubernetes'
// own CronJob validation (validateScheduleFormat and validateTimeZone of k8s.io/kubernetes
// v1.34 pkg/apis/batch/validation, copied below because that package cannot be imported alone);
// run times are robfig/cron v3's SpecSchedule.Next, called the way the CronJob controller calls
// it (formatSchedule in pkg/controller/cronjob: "TZ=<zone> <schedule>").
//
//	{"op":"validate","schedule":"0 8 * * MON","timeZone":"Europe/Berlin"}  -> {"ok":true}
//	{"op":"next","schedule":"0 8 * * MON","timeZone":"Europe/Berlin","from":1767225600000,"count":3}
//	                                                                       -> {"ok":true,"times":[...]}
//
// robfig/cron's Next never returns for some schedules at some DST changes (in zones whose clocks
// move by 30 minutes, such as Australia/Lord_Howe); such an answer says "stuck" and the process
// exits, to be started again by its client.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

type request struct {
	Op       string  `json:"op"`
	Schedule string  `json:"schedule"`
	TimeZone *string `json:"timeZone,omitempty"`
	// From is epoch milliseconds; Next is asked for the first run strictly after it.
	From  int64 `json:"from"`
	Count int   `json:"count"`
}

type answer struct {
	OK     bool     `json:"ok"`
	Errors []string `json:"errors,omitempty"`
	// Times are epoch milliseconds; the list ends early when robfig gives up (its zero time).
	Times []int64 `json:"times,omitempty"`
	// Stuck says robfig's Next did not return (it loops forever at some DST changes); the
	// process exits after this answer, since the loop cannot be stopped, and is started again.
	Stuck bool `json:"stuck,omitempty"`
}

// stuckAfter is far beyond what one Next takes (microseconds; robfig gives up after five years).
const stuckAfter = 1 * time.Second

// validTimeZoneCharacters is Kubernetes' (pkg/apis/batch/validation).
var validTimeZoneCharacters = regexp.MustCompile(`^[A-Za-z\.\-_0-9+]{1,14}$`)

// validate is what the API server checks of a new CronJob's schedule and timeZone.
func validate(schedule string, timeZone *string) []string {
	var errs []string
	if len(schedule) == 0 {
		return []string{"schedule: Required value"}
	}
	if _, err := cron.ParseStandard(schedule); err != nil {
		errs = append(errs, err.Error())
	}
	// A new object never has allowTZInSchedule.
	if strings.Contains(schedule, "TZ") {
		errs = append(errs, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead")
	}
	if timeZone == nil {
		return errs
	}
	if len(*timeZone) == 0 {
		return append(errs, "timeZone must be nil or non-empty string")
	}
	for _, part := range strings.Split(*timeZone, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !validTimeZoneCharacters.MatchString(part) {
			return append(errs, fmt.Sprintf("unknown time zone %s", *timeZone))
		}
	}
	if strings.EqualFold(*timeZone, "Local") {
		errs = append(errs, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones")
	}
	if _, err := time.LoadLocation(*timeZone); err != nil {
		errs = append(errs, err.Error())
	}
	return errs
}

// formatSchedule is the CronJob controller's.
func formatSchedule(schedule string, timeZone *string) string {
	if strings.Contains(schedule, "TZ") {
		return schedule
	}
	if timeZone != nil {
		if _, err := time.LoadLocation(*timeZone); err != nil {
			return schedule
		}
		return fmt.Sprintf("TZ=%s %s", *timeZone, schedule)
	}
	return schedule
}

func next(r request) answer {
	if errs := validate(r.Schedule, r.TimeZone); len(errs) > 0 {
		return answer{OK: false, Errors: errs}
	}
	sched, err := cron.ParseStandard(formatSchedule(r.Schedule, r.TimeZone))
	if err != nil {
		return answer{OK: false, Errors: []string{err.Error()}}
	}
	// The controller runs in UTC unless told otherwise; without a timeZone robfig reads the schedule in time.Local.
	t := time.UnixMilli(r.From).UTC()
	times := make([]int64, 0, r.Count)
	for i := 0; i < r.Count; i++ {
		found := make(chan time.Time, 1)
		go func(from time.Time) { found <- sched.Next(from) }(t)
		select {
		case t = <-found:
		case <-time.After(stuckAfter):
			return answer{OK: true, Times: times, Stuck: true}
		}
		if t.IsZero() {
			break
		}
		times = append(times, t.UnixMilli())
	}
	return answer{OK: true, Times: times}
}

func main() {
	// The CronJob controller's time.Local is its container's: UTC.
	time.Local = time.UTC
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for in.Scan() {
		var r request
		var a answer
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			a = answer{OK: false, Errors: []string{"bad request: " + err.Error()}}
		} else {
			switch r.Op {
			case "validate":
				errs := validate(r.Schedule, r.TimeZone)
				a = answer{OK: len(errs) == 0, Errors: errs}
			case "next":
				a = next(r)
			default:
				a = answer{OK: false, Errors: []string{"bad request: unknown op " + r.Op}}
			}
		}
		if err := enc.Encode(a); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		// Each answer is flushed: the test waits for it before sending more only when it must.
		if err := out.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if a.Stuck {
			// The goroutine in robfig's loop cannot be stopped: end the process with it.
			os.Exit(3)
		}
	}
	_ = out.Flush()
}
