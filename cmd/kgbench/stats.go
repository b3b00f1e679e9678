package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// dist is a sorted sample of durations.
type dist []time.Duration

func newDist(samples []time.Duration) dist {
	d := slices.Clone(samples)
	slices.Sort(d)
	return d
}

// q is the nearest-rank quantile (0 for an empty sample).
func (d dist) q(p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(p*float64(len(d))+0.5) - 1
	return d[max(0, min(i, len(d)-1))]
}

func (d dist) p50() time.Duration { return d.q(0.50) }
func (d dist) p99() time.Duration { return d.q(0.99) }

// us formats a duration in microseconds with one decimal.
func us(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond)) }

// ms formats a duration in milliseconds with two decimals.
func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// kib formats bytes in KiB with one decimal.
func kib(b float64) string { return fmt.Sprintf("%.1f KiB", b/1024) }

// rss reads the process's resident set size from /proc/self/status.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n * 1024
		}
	}
	return 0
}
