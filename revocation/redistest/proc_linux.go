package redistest

import "syscall"

// sysProcAttr kills redis-server if the test binary dies without cleanup.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
