package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// machine describes where the run happened.
type machine struct {
	CPUs   int
	Model  string
	Memory string
	Go     string
	OS     string
}

func describeMachine() machine {
	m := machine{CPUs: runtime.NumCPU(), Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH,
		Model: "unknown", Memory: "unknown"}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.Model = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && k == "MemTotal" {
				m.Memory = strings.TrimSpace(v)
				if f := strings.Fields(v); len(f) == 2 && f[1] == "kB" {
					if kb, err := strconv.ParseFloat(f[0], 64); err == nil {
						m.Memory = fmt.Sprintf("%.1f GiB", kb/(1<<20))
					}
				}
				break
			}
		}
	}
	return m
}
