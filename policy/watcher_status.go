package policy

// ReloadStatus is the outcome of a Watcher's last reload attempt.
type ReloadStatus struct {
	// Attempts counts the load attempts after the initial load.
	Attempts int
	// Revision is the revision of the content last tried; empty before any
	// attempt.
	Revision string
	// Err is the last attempt's error, nil when it succeeded: the policy in
	// force is then the previous one.
	Err error
}

// Status returns the outcome of the last reload attempt, for operators:
// a refused reload keeps the previous policy serving, and this is where
// its error remains visible.
func (w *Watcher) Status() ReloadStatus {
	if s := w.status.Load(); s != nil {
		return *s
	}
	return ReloadStatus{}
}

// record keeps the outcome of one reload attempt for Status.
func (w *Watcher) record(rev string, err error) {
	for {
		prev := w.status.Load()
		next := &ReloadStatus{Attempts: 1, Revision: rev, Err: err}
		if prev != nil {
			next.Attempts = prev.Attempts + 1
		}
		if w.status.CompareAndSwap(prev, next) {
			return
		}
	}
}
