package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// otherLoad measures what the rest of the machine did meanwhile: the CPU
// time all processes used (from /proc/stat) minus this process's, as an
// average number of busy cores. Other work on a shared machine disturbs
// the tails of every latency figure; the report prints this next to them.
type otherLoad struct {
	busy0 float64
	own0  time.Duration
	at0   time.Time
}

func startLoad() otherLoad { return otherLoad{busy0: machineBusy(), own0: cpuTime(), at0: time.Now()} }

// cores returns the other processes' average busy cores since start.
func (l otherLoad) cores() float64 {
	wall := time.Since(l.at0).Seconds()
	if wall <= 0 || l.busy0 < 0 {
		return 0
	}
	other := machineBusy() - l.busy0 - (cpuTime() - l.own0).Seconds()
	return max(0, other/wall)
}

// machineBusy is the seconds of non-idle CPU time of all processes since
// boot (-1 when /proc/stat is unreadable).
func machineBusy() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return -1
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return -1
	}
	var busy float64
	for i, v := range f[1:] {
		n, _ := strconv.ParseFloat(v, 64)
		if i == 3 || i == 4 || i >= 8 { // idle, iowait; guest time is already in user
			continue
		}
		busy += n
	}
	return busy / 100 // USER_HZ
}

// loadavg is the 1, 5 and 15 minute load averages.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// raisePriority sets the nice value of every thread of this process (new
// threads inherit it from the thread that creates them), so that other
// work on a shared machine does not set the tails. Lowering the nice value
// needs root; the result says what was done.
func raisePriority(nice int) string {
	if nice == 0 {
		return "default (nice 0)"
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return "default (nice 0): " + err.Error()
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice); err != nil {
			return "default (nice 0): setpriority: " + err.Error()
		}
	}
	return "nice " + strconv.Itoa(nice) + " on every thread"
}
