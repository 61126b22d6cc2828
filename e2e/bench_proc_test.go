//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// metricValue is the value of the first sample line of /metrics text that
// starts with series (name and labels as written), or NaN.
func metricValue(body, series string) float64 {
	for line := range strings.Lines(body) {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err == nil {
				return v
			}
		}
	}
	return math.NaN()
}

// metricOrZero is metricValue with an absent series (a counter never
// incremented) read as 0.
func metricOrZero(body, series string) float64 {
	if v := metricValue(body, series); !math.IsNaN(v) {
		return v
	}
	return 0
}

// procStat is a process's CPU time and memory from /proc.
type procStat struct {
	CPU   time.Duration // user + system
	RSS   int64         // VmRSS, bytes
	HWM   int64         // VmHWM (peak RSS), bytes
	Valid bool
}

// readProc reads /proc/<pid>/stat and status of p's process.
func readProc(p *lsnodeProc) procStat {
	p.mu.Lock()
	pid := p.cmd.Process.Pid
	p.mu.Unlock()
	var ps procStat
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ps
	}
	// Fields after the command name (which may hold spaces) in ")".
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 13 {
		return ps
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	ps.CPU = time.Duration(utime+stime) * time.Second / time.Duration(clockTicks())
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ps
	}
	for line := range strings.Lines(string(status)) {
		k, v, _ := strings.Cut(line, ":")
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		switch k {
		case "VmRSS":
			ps.RSS = n << 10
		case "VmHWM":
			ps.HWM = n << 10
		}
	}
	ps.Valid = true
	return ps
}

// clockTicks is the kernel's USER_HZ (getconf CLK_TCK), 100 if unknown.
var clockTicks = sync.OnceValue(func() int64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if n, perr := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); err == nil && perr == nil && n > 0 {
		return n
	}
	return 100
})

// mib formats bytes as MiB.
func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
