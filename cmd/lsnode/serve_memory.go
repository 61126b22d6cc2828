package main

import (
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// defaultMemoryLimit is the Go runtime's soft memory limit a node runs
// with unless told otherwise. Without one the collector lets the heap grow
// to twice its live size, which during a large catch-up (batches decoded,
// applied and fed to the read cache) more than doubles the resident size;
// with it the collector works harder as the limit nears instead. SQLite's
// page caches live outside the Go heap and come on top.
const defaultMemoryLimit = 160 << 20

// memoryLimitFlag is --memory-limit: a size as GOMEMLIMIT writes it
// ("160MiB", "1GiB", "200000000"), or "off".
type memoryLimitFlag struct{ text *string }

func addMemoryLimitFlag(e *serveEnv) memoryLimitFlag {
	return memoryLimitFlag{e.String("memory-limit", formatSize(defaultMemoryLimit),
		"soft limit of the Go runtime's memory (e.g. 160MiB, 1GiB, off); GOMEMLIMIT, when set, wins (env LSNODE_MEMORY_LIMIT)",
		"LSNODE_MEMORY_LIMIT")}
}

// apply sets the runtime's soft memory limit and logs it. A GOMEMLIMIT in
// the environment has already been applied by the runtime and is kept.
func (f memoryLimitFlag) apply(logger *slog.Logger) error {
	if v := os.Getenv("GOMEMLIMIT"); v != "" {
		logger.Info("memory limit from GOMEMLIMIT", "limit", v)
		return nil
	}
	limit, err := f.limit()
	if err != nil {
		return err
	}
	if limit == 0 {
		return nil
	}
	debug.SetMemoryLimit(limit)
	logger.Info("memory limit", "limit", formatSize(limit))
	return nil
}

// limit is the flag's byte count; 0 is no limit.
func (f memoryLimitFlag) limit() (int64, error) {
	limit, err := parseSize(*f.text)
	if err != nil {
		return 0, usageErrorf("--memory-limit %q: %v", *f.text, err)
	}
	return limit, nil
}

// sizeUnits are the suffixes GOMEMLIMIT accepts, largest first.
var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}

// parseSize reads a byte count with an optional binary suffix; "off" and
// "0" are 0 (no limit).
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "off" {
		return 0, nil
	}
	shift := uint(0)
	for _, u := range sizeUnits {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			s, shift = num, u.shift
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)>>shift {
		return 0, fmt.Errorf("want a byte count such as 160MiB, 1GiB or off")
	}
	return n << shift, nil
}

// formatSize writes n with the largest suffix that divides it.
func formatSize(n int64) string {
	for _, u := range sizeUnits {
		if u.shift > 0 && n > 0 && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}
