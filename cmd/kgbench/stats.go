package main

import (
	"fmt"
	"slices"
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
func (d dist) Q(p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(p*float64(len(d))+0.5) - 1
	return d[max(0, min(i, len(d)-1))]
}

func (d dist) P50() time.Duration { return d.Q(0.50) }
func (d dist) P99() time.Duration { return d.Q(0.99) }

// us formats a duration in microseconds with one decimal.
func us(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond)) }

// ms formats a duration in milliseconds with two decimals.
func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// kib formats bytes in KiB with one decimal.
func kib(b float64) string { return fmt.Sprintf("%.1f KiB", b/1024) }

// mib formats bytes in MiB with one decimal.
func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
