//go:build !linux

package loadtest

import (
	"syscall"
	"time"
)

// sysProcAttr has nothing to add outside Linux.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// processCPU is not measured outside Linux.
func processCPU() time.Duration { return 0 }
