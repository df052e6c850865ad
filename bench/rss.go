package bench

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// PeakRSSBytes returns the process's peak resident set size: VmHWM from
// /proc/self/status, or getrusage's ru_maxrss where /proc is absent.
func PeakRSSBytes() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err == nil {
		defer f.Close() // read-only file: a close error cannot lose data
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:")
			if !ok {
				continue
			}
			fs := strings.Fields(rest)
			if len(fs) != 2 || fs[1] != "kB" {
				return 0, fmt.Errorf("unexpected VmHWM line %q in /proc/self/status", sc.Text())
			}
			kb, err := strconv.ParseInt(fs[0], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parse VmHWM %q: %w", fs[0], err)
			}
			return kb * 1024, nil
		}
		if err := sc.Err(); err != nil {
			return 0, fmt.Errorf("read /proc/self/status: %w", err)
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("getrusage: %w", err)
	}
	return ru.Maxrss * 1024, nil // Linux reports kilobytes
}
