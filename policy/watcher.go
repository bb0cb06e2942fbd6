package policy

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultWatchInterval is the poll interval when WatcherOptions.Interval is
// zero.
const DefaultWatchInterval = 2 * time.Second

// WatcherOptions configures a Watcher.
type WatcherOptions struct {
	// Interval is how often the file's content hash is polled. Zero means
	// DefaultWatchInterval; a negative value disables polling (Reload only).
	Interval time.Duration
	// Logger receives reload outcomes; nil discards them.
	Logger *slog.Logger
	// OnReload, when set, is called after every load attempt other than the
	// initial one, including a Reload of unchanged content (a success that
	// changes nothing; polling does not count unchanged reads): with the
	// new revision and a nil error on success, or with
	// the revision of the refused content and the load error on failure
	// (the previous policy keeps serving). It must not block for long.
	OnReload func(revision string, err error)
}

// Watcher keeps the last good policy of a file and reloads it on change.
//
// A broken or half-written file is never applied: Load refuses it, the
// previous policy keeps serving, and the error is logged and passed to
// OnReload. Polling applies a new content only after it has been read
// identical on two consecutive polls, so a file caught in the middle of a
// write is not even tried; editors should still replace the file
// atomically (write a temporary file, then rename).
type Watcher struct {
	path   string
	cat    Catalog // guarded by mu
	opts   WatcherOptions
	log    *slog.Logger
	cur    atomic.Pointer[Policy]
	mu     sync.Mutex // serializes loads; guards seen and candidate
	seen   [32]byte   // content last loaded (successfully or not)
	cand   [32]byte   // content seen by the previous poll, not yet loaded
	cancel context.CancelFunc
	done   chan struct{}
	closed atomic.Bool
	status atomic.Pointer[ReloadStatus] // the last reload attempt, for Status
}

// NewWatcher loads path against cat and starts polling it. The initial load
// must succeed: its error (wrapping ErrReadPolicy or ErrInvalidPolicy) is
// returned. Polling stops at Close or when ctx is done.
func NewWatcher(ctx context.Context, path string, cat Catalog, opts WatcherOptions) (*Watcher, error) {
	w := &Watcher{path: path, cat: cat, opts: opts, log: opts.Logger, done: make(chan struct{})}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	data, err := w.read()
	if err != nil {
		return nil, err
	}
	p, _, err := Load(ctx, data, path, cat)
	if err != nil {
		return nil, err
	}
	w.cur.Store(p)
	w.seen = sha256.Sum256(data)
	w.cand = w.seen
	interval := opts.Interval
	if interval == 0 {
		interval = DefaultWatchInterval
	}
	ctx, w.cancel = context.WithCancel(ctx)
	if interval < 0 {
		close(w.done)
		return w, nil
	}
	go w.poll(ctx, interval)
	return w, nil
}

// Current returns the policy in force. Take it once per request and decide
// the whole request against that one *Policy.
func (w *Watcher) Current() *Policy { return w.cur.Load() }

// Reload reads and loads the file now (for SIGHUP and the admin endpoint).
// On failure the previous policy keeps serving and the error is returned.
// Reloading unchanged content that loaded before is a no-op.
func (w *Watcher) Reload(ctx context.Context) error {
	if w.closed.Load() {
		return ErrWatcherClosed
	}
	data, err := w.read()
	if err != nil {
		w.report("", err)
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	sum := sha256.Sum256(data)
	if sum == w.seen && Revision(data) == w.Current().Revision() {
		// Asked for, so an attempt (for OnReload and its metrics), even
		// though there is nothing to load.
		w.report(Revision(data), nil)
		return nil
	}
	return w.apply(ctx, data, sum)
}

// SetCatalog re-validates the current file against a new catalog (after
// the gateway config or an agent card changed: "*" in a rule expands to the
// catalog at load time). On success the new policy and catalog replace the
// old ones; on failure both are kept and the error is returned.
func (w *Watcher) SetCatalog(ctx context.Context, cat Catalog) error {
	if w.closed.Load() {
		return ErrWatcherClosed
	}
	data, err := w.read()
	if err != nil {
		w.report("", err)
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	p, _, err := Load(ctx, data, w.path, cat)
	if err != nil {
		w.log.Error("policy: refused new catalog; keeping the current policy", "path", w.path, "error", err)
		w.report(Revision(data), err)
		return err
	}
	w.cat = cat
	w.seen, w.cand = sha256.Sum256(data), sha256.Sum256(data)
	w.cur.Store(p)
	w.log.Info("policy: reloaded for a new catalog", "path", w.path, "revision", p.Revision())
	w.report(p.Revision(), nil)
	return nil
}

// Close stops polling and waits for the poll goroutine to end.
func (w *Watcher) Close() error {
	if w.closed.Swap(true) {
		return nil
	}
	w.cancel()
	<-w.done
	return nil
}

func (w *Watcher) poll(ctx context.Context, interval time.Duration) {
	defer close(w.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.pollOnce(ctx)
		}
	}
}

// pollOnce loads the file when its content changed and was read identical
// on the previous poll too.
func (w *Watcher) pollOnce(ctx context.Context) {
	data, err := w.read()
	if err != nil {
		w.log.Warn("policy: cannot read policy file; keeping the current policy",
			"path", w.path, "revision", w.Current().Revision(), "error", err)
		return
	}
	sum := sha256.Sum256(data)
	w.mu.Lock()
	defer w.mu.Unlock()
	if sum == w.seen {
		return
	}
	if sum != w.cand {
		w.cand = sum // changed since the last poll: wait until it settles
		return
	}
	_ = w.apply(ctx, data, sum)
}

// apply loads data and swaps it in on success. w.mu must be held.
func (w *Watcher) apply(ctx context.Context, data []byte, sum [32]byte) error {
	if sum == w.seen && Revision(data) == w.Current().Revision() {
		return nil
	}
	w.seen, w.cand = sum, sum
	p, problems, err := Load(ctx, data, w.path, w.cat)
	if err != nil {
		w.log.Error("policy: refused new policy; keeping the current one",
			"path", w.path, "current", w.Current().Revision(), "refused", Revision(data), "error", err)
		w.report(Revision(data), err)
		return err
	}
	w.cur.Store(p)
	w.log.Info("policy: loaded", "path", w.path, "revision", p.Revision(), "rules",
		len(p.rules)+len(p.a2e)+len(p.ambient), "warnings", len(problems))
	w.report(p.Revision(), nil)
	return nil
}

func (w *Watcher) report(rev string, err error) {
	w.record(rev, err)
	if w.opts.OnReload != nil {
		w.opts.OnReload(rev, err)
	}
}

func (w *Watcher) read() ([]byte, error) {
	f, err := os.Open(w.path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReadPolicy, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxPolicyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrReadPolicy, w.path, err)
	}
	return data, nil
}
