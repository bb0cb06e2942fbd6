package throttle_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/audit"
	"github.com/capgate/capgate/gateway/audit/throttle"
)

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// step is one refused call (client, kind) at an offset, or a sweep or
// close when client is "sweep" or "close".
type step struct {
	at           time.Duration
	client, kind string
}

// TestThrottle: per client and kind at most Events events a window, then
// one summary counting the suppressed ones when the window ends (at the
// next call, a sweep or close), or early when the window is evicted; the
// trail's chain verifies.
func TestThrottle(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
		want  []string // "kind client" for an event, "kind client suppressed=N" for a summary
	}{
		{"under the limit", []step{{0, "a", "k"}, {1, "a", "k"}}, []string{"k a", "k a"}},
		{"over the limit, summary at the next window", []step{
			{0, "a", "k"}, {1, "a", "k"}, {2, "a", "k"}, {3, "a", "k"}, {time.Minute, "a", "k"}},
			[]string{"k a", "k a", "k a suppressed=2", "k a"}},
		{"kinds apart", []step{{0, "a", "k"}, {0, "a", "k"}, {0, "a", "j"}, {0, "a", "k"}, {0, "close", ""}},
			[]string{"k a", "k a", "j a", "k a suppressed=1"}},
		{"clients apart", []step{{0, "a", "k"}, {0, "a", "k"}, {0, "b", "k"}, {0, "a", "k"}, {0, "close", ""}},
			[]string{"k a", "k a", "k b", "k a suppressed=1"}},
		{"another client's call writes the summary", []step{
			{0, "a", "k"}, {0, "a", "k"}, {0, "a", "k"}, {time.Minute, "b", "k"}},
			[]string{"k a", "k a", "k a suppressed=1", "k b"}},
		{"sweep after the window", []step{
			{0, "a", "k"}, {0, "a", "k"}, {0, "a", "k"}, {59 * time.Second, "sweep", ""}, {time.Minute, "sweep", ""}},
			[]string{"k a", "k a", "k a suppressed=1"}},
		{"close writes what is pending", []step{
			{0, "a", "k"}, {0, "a", "k"}, {0, "a", "k"}, {0, "a", "k"}, {0, "close", ""}},
			[]string{"k a", "k a", "k a suppressed=2"}},
		{"eviction of the oldest writes its summary", []step{
			{0, "a", "k"}, {0, "a", "k"}, {0, "a", "k"}, {1, "b", "k"}, {2, "c", "k"}, {3, "a", "k"}},
			[]string{"k a", "k a", "k b", "k a suppressed=1", "k c", "k a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var trail bytes.Buffer
			clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			start := clk.t
			th := throttle.New(throttle.Options{Audit: slog.New(audit.NewHandler(&trail, audit.Options{Chain: "t", Now: clk.now})),
				Events: 2, Window: time.Minute, Clients: 2, Now: clk.now})
			ctx := context.Background()
			for _, s := range tt.steps {
				clk.t = start.Add(s.at)
				switch s.client {
				case "sweep":
					th.Sweep(ctx)
				case "close":
					th.Close(ctx)
				default:
					th.Log(ctx, s.client, s.kind, slog.String("path", "/x"))
				}
			}
			if got := lines(t, trail.String()); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("trail:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if _, err := audit.Verify(bytes.NewReader(trail.Bytes())); err != nil {
				t.Errorf("chain: %v", err)
			}
		})
	}
}

// lines reduces each event of the trail to "kind client[ suppressed=N]".
func lines(t *testing.T, trail string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(trail), "\n") {
		if l == "" {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		s := fmt.Sprintf("%v %v", ev["event"], ev["client"])
		if ev["decision"] == throttle.Decision {
			s += fmt.Sprintf(" suppressed=%v", ev["suppressed"])
		}
		out = append(out, s)
	}
	return out
}

// TestBounded: a flood from many addresses holds at most Clients
// windows, writes at most Total events, and counts every suppressed
// event in some summary.
func TestBounded(t *testing.T) {
	var trail bytes.Buffer
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	th := throttle.New(throttle.Options{Audit: slog.New(audit.NewHandler(&trail, audit.Options{Chain: "t", Now: clk.now})),
		Events: 1, Window: time.Hour, Clients: 8, Total: 20, Now: clk.now})
	ctx := context.Background()
	const calls = 5000
	for i := range calls {
		th.Log(ctx, fmt.Sprintf("10.0.%d.%d", i%40/256, i%40), "k")
	}
	th.Close(ctx)
	written, suppressed := 0, 0
	for _, l := range strings.Split(strings.TrimSpace(trail.String()), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		if ev["decision"] == throttle.Decision {
			suppressed += int(ev["suppressed"].(float64))
		} else {
			written++
		}
	}
	if written+suppressed != calls || written > 20 {
		t.Errorf("%d written + %d suppressed, want %d calls, at most 20 written", written, suppressed, calls)
	}
}

func TestClient(t *testing.T) {
	tests := []struct{ in, want string }{
		{"192.0.2.1:5000", "192.0.2.1"},
		{"[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{"[::ffff:192.0.2.9]:1", "192.0.2.9"},
		{"@", "@"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := throttle.Client(tt.in); got != tt.want {
			t.Errorf("Client(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestTotal: past the budget of all clients together, events of clients
// with budget left are counted under AnyClient; a client past its own
// budget is still counted under its own address.
func TestTotal(t *testing.T) {
	var trail bytes.Buffer
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	th := throttle.New(throttle.Options{Audit: slog.New(audit.NewHandler(&trail, audit.Options{Chain: "t", Now: clk.now})),
		Events: 2, Total: 3, Window: time.Minute, Now: clk.now})
	ctx := context.Background()
	for _, c := range []string{"a", "a", "b", "b", "c", "a"} {
		th.Log(ctx, c, "k")
	}
	th.Close(ctx)
	want := []string{"k a", "k a", "k b", "k a suppressed=1", "k * suppressed=2"}
	if got := lines(t, trail.String()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("trail:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := audit.Verify(bytes.NewReader(trail.Bytes())); err != nil {
		t.Errorf("chain: %v", err)
	}
}
