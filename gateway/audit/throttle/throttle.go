package throttle

import (
	"container/list"
	"context"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"time"
)

// Defaults for the zero Options fields.
const (
	DefaultEvents  = 10
	DefaultWindow  = time.Minute
	DefaultClients = 4096
	DefaultTotal   = 1000
)

// AnyClient is the client of the summary of events suppressed because
// the budget of every client together (Options.Total) was spent.
const AnyClient = "*"

// Decision is the audit decision of a summary event.
const Decision = "suppressed"

// Options configure a Throttle.
type Options struct {
	// Audit receives the events let through and the summaries; nil
	// records nothing.
	Audit *slog.Logger
	// Events is how many events a client may cause per kind and window;
	// zero means DefaultEvents.
	Events int
	// Window is how long a client's budget lasts from its first event;
	// zero means DefaultWindow.
	Window time.Duration
	// Clients bounds the windows held at once; zero means DefaultClients.
	Clients int
	// Total bounds the events written for all clients together in a
	// window (from the first event after the last one ended), against a
	// flood from many addresses; zero means DefaultTotal.
	Total int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Throttle bounds the audit events of refused calls per client and kind.
// It is safe for concurrent use.
type Throttle struct {
	opts Options

	mu sync.Mutex
	// windows maps client and kind to its element in order, which holds
	// the windows by start, the first begun at the front.
	windows map[key]*list.Element
	order   *list.List
	// total counts the events written since totalStart.
	totalStart time.Time
	total      int
}

type key struct{ client, kind string }

// window is one client's budget for one kind.
type window struct {
	key
	start, first, last  time.Time
	written, suppressed int
}

// New returns a throttle.
func New(opts Options) *Throttle {
	if opts.Events <= 0 {
		opts.Events = DefaultEvents
	}
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	if opts.Clients <= 0 {
		opts.Clients = DefaultClients
	}
	if opts.Total <= 0 {
		opts.Total = DefaultTotal
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Throttle{opts: opts, windows: map[key]*list.Element{}, order: list.New()}
}

// Client is the address a request's refusals are counted under: the
// host of remoteAddr (an http.Request's RemoteAddr), an IPv6 one
// reduced to its /64.
func Client(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// Log writes the event kind with attrs and the client for client, unless
// the client's budget for kind in its window is spent: then the event is
// only counted, for a later summary. Pending summaries of ended windows
// are written first.
func (t *Throttle) Log(ctx context.Context, client, kind string, attrs ...slog.Attr) {
	now := t.opts.Now()
	summaries, write := t.note(now, key{client: client, kind: kind})
	for _, w := range summaries {
		t.summarize(ctx, w)
	}
	if write && t.opts.Audit != nil {
		attrs = append(attrs, slog.String("client", client))
		t.opts.Audit.LogAttrs(ctx, slog.LevelInfo, kind, attrs...)
	}
}

// note counts one event of k at now: whether to write it, and the
// summaries to write before it.
func (t *Throttle) note(now time.Time, k key) ([]window, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	summaries := t.expire(now)
	if now.Sub(t.totalStart) >= t.opts.Window {
		t.totalStart, t.total = now, 0
	}
	if el, ok := t.windows[k]; ok && el.Value.(*window).written >= t.opts.Events {
		el.Value.(*window).count(now)
		return summaries, false
	}
	if t.total >= t.opts.Total {
		w := t.open(now, key{client: AnyClient, kind: k.kind}, &summaries)
		w.count(now)
		return summaries, false
	}
	w := t.open(now, k, &summaries)
	w.written++
	t.total++
	return summaries, true
}

// open returns k's window, opening it at now when there is none; when
// Clients are held, the one begun first is dropped and its summary added
// to summaries.
func (t *Throttle) open(now time.Time, k key, summaries *[]window) *window {
	if el, ok := t.windows[k]; ok {
		return el.Value.(*window)
	}
	if t.order.Len() >= t.opts.Clients {
		if w := t.drop(t.order.Front()); w.suppressed > 0 {
			*summaries = append(*summaries, w)
		}
	}
	w := &window{key: k, start: now}
	t.windows[k] = t.order.PushBack(w)
	return w
}

// count counts one suppressed event at now.
func (w *window) count(now time.Time) {
	if w.suppressed == 0 {
		w.first = now
	}
	w.suppressed++
	w.last = now
}

// expire drops the windows that ended by now, returning those with
// suppressed events.
func (t *Throttle) expire(now time.Time) []window {
	var out []window
	for el := t.order.Front(); el != nil; el = t.order.Front() {
		if now.Sub(el.Value.(*window).start) < t.opts.Window {
			break
		}
		if w := t.drop(el); w.suppressed > 0 {
			out = append(out, w)
		}
	}
	return out
}

func (t *Throttle) drop(el *list.Element) window {
	w := t.order.Remove(el).(*window)
	delete(t.windows, w.key)
	return *w
}

// summarize writes the summary of w's suppressed events.
func (t *Throttle) summarize(ctx context.Context, w window) {
	if t.opts.Audit == nil {
		return
	}
	t.opts.Audit.LogAttrs(ctx, slog.LevelInfo, w.kind, slog.String("decision", Decision),
		slog.String("client", w.client), slog.Int("suppressed", w.suppressed),
		slog.Time("first", w.first.UTC()), slog.Time("last", w.last.UTC()))
}

// Sweep writes the summaries of the windows that have ended.
func (t *Throttle) Sweep(ctx context.Context) {
	t.mu.Lock()
	summaries := t.expire(t.opts.Now())
	t.mu.Unlock()
	for _, w := range summaries {
		t.summarize(ctx, w)
	}
}

// Run sweeps four times a window until ctx ends, so that a summary is
// written soon after its window ends even when no refused call follows.
func (t *Throttle) Run(ctx context.Context) {
	tick := time.NewTicker(max(t.opts.Window/4, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			t.Sweep(ctx)
		}
	}
}

// Close writes the summary of every window with suppressed events and
// forgets them all.
func (t *Throttle) Close(ctx context.Context) {
	t.mu.Lock()
	var summaries []window
	for el := t.order.Front(); el != nil; el = t.order.Front() {
		if w := t.drop(el); w.suppressed > 0 {
			summaries = append(summaries, w)
		}
	}
	t.mu.Unlock()
	for _, w := range summaries {
		t.summarize(ctx, w)
	}
}
