package compiler

import (
	"os"
	"runtime"
	"strconv"
	"strings"
)

// LoadAverage is the one-minute load average (/proc/loadavg), ok false
// where it cannot be read.
func LoadAverage() (float64, bool) { return loadNow() }

// loadNow reads it; tests that need a steady load replace it
// (export_test.go), since a real machine's load moves between two runs.
var loadNow = readLoadAverage

func readLoadAverage() (float64, bool) {
	f := LoadAverages()
	if len(f) < 1 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return v, err == nil
}

// LoadAverages are /proc/loadavg's 1, 5 and 15-minute averages as
// written there, nil where it cannot be read.
func LoadAverages() []string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return nil
	}
	return f[:3]
}

// Busy reports whether a load average means other processes keep half the
// machine's CPUs busy or more: timings taken then are not the machine's. (At
// a quarter, a quiet machine's load decaying from the run before warned.)
func Busy(load float64) bool { return load >= 0.5*float64(runtime.NumCPU()) }

// staleChoice reports whether a cached decision measured at load was
// timed on an oversubscribed machine while this one is quiet now, so that
// it is measured again: a choice made under load (one thread beating the
// team because the second core was taken) stayed cached for quiet runs.
// The measuring worker itself keeps up to one thread per CPU runnable (a
// load of about the CPU count), so only a load half again above that says
// other processes competed; quiet is under half the CPUs.
func staleChoice(measuredAt float64, now float64, nowOK bool) bool {
	cpus := float64(runtime.NumCPU())
	return nowOK && measuredAt >= 1.5*cpus && now < 0.5*cpus
}
