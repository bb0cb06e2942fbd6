package loadtest

import "syscall"

// sysProcAttr kills a started redis-server if the load test dies without
// cleaning up.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
