package audit

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"testing"
	"time"
)

// referenceLine is what the general path (attribute maps through
// encoding/json) encodes for r under h: the attribute members joined.
func referenceLine(t *testing.T, h *Handler, r slog.Record) []byte {
	t.Helper()
	ms, err := encodeMembers(h.attrs(r))
	if err != nil {
		t.Fatal(err)
	}
	return join(ms, "")
}

// assertSameEncoding checks that the builder, when it takes r, encodes it
// byte for byte as the general path does.
func assertSameEncoding(t *testing.T, h *Handler, r slog.Record) (taken bool) {
	t.Helper()
	var b builder
	ms, ok := b.encode(h.steps, &r, nil)
	if !ok {
		return false
	}
	if got, want := join(ms, ""), referenceLine(t, h, r); !bytes.Equal(got, want) {
		t.Fatalf("builder encoding differs:\n got %s\nwant %s", got, want)
	}
	return true
}

// fuzzAttrs turns data into attributes and handler steps: each byte picks
// a kind of attribute, a key from a small set (so that keys collide with
// each other and with the reserved fields) and a value drawn from s.
func fuzzAttrs(data []byte, s string, f float64) (*Handler, slog.Record) {
	keys := []string{"a", "b", "seq", "hash", "a#2", "", s, "time", "k\xff"}
	h := NewHandler(io.Discard, Options{Chain: "c"})
	var attrs []slog.Attr
	var stack [][]slog.Attr
	for i, c := range data {
		key := keys[int(c>>4)%len(keys)]
		switch c % 16 {
		case 0:
			attrs = append(attrs, slog.String(key, s))
		case 1:
			attrs = append(attrs, slog.Int64(key, int64(i)-int64(c)<<40))
		case 2:
			attrs = append(attrs, slog.Float64(key, f*float64(i)))
		case 3:
			attrs = append(attrs, slog.Bool(key, c&32 != 0))
		case 4:
			attrs = append(attrs, slog.Duration(key, time.Duration(f)))
		case 5:
			attrs = append(attrs, slog.Time(key, time.Unix(int64(f), int64(i)).In(time.FixedZone("Z", int(c)*60))))
		case 6:
			attrs = append(attrs, slog.Any(key, nil), slog.Any(key, errors.New(s)))
		case 7:
			attrs = append(attrs, slog.Any(key, []string{s, key}), slog.Any(key, []string(nil)))
		case 8:
			stack = append(stack, attrs)
			attrs = nil
		case 9:
			if n := len(stack); n > 0 {
				g := slog.Attr{Key: key, Value: slog.GroupValue(attrs...)}
				attrs = append(stack[n-1], g)
				stack = stack[:n-1]
			}
		case 10:
			h = h.WithAttrs(attrs).(*Handler)
			attrs = nil
		case 11:
			h = h.WithGroup(key).(*Handler)
		case 12:
			attrs = append(attrs, slog.Attr{}, slog.Uint64(key, math.MaxUint64-uint64(i)))
		case 13:
			attrs = append(attrs, slog.Any(key, map[string]int{s: i}))
		case 14:
			attrs = append(attrs, slog.Float64(key, math.Inf(int(c&1)*2-1)), slog.Float64(key, math.NaN()))
		default:
			attrs = append(attrs, slog.String(key, "\u2028<&>\"\\\x00\b\f\n\r\t\x7f"))
		}
	}
	r := slog.NewRecord(time.Time{}, slog.LevelInfo, s, 0)
	r.AddAttrs(attrs...)
	return h, r
}

// TestBuilderMatchesReference pins the builder to the general path on
// hand-picked records, including every golden record.
func TestBuilderMatchesReference(t *testing.T) {
	seeds := [][]byte{
		{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77},
		{0x28, 0x00, 0x19, 0x3a, 0x0b, 0x41, 0x0c},
		{0x20, 0x20, 0x20, 0x30, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80},
		{0x0b, 0x1b, 0x0a, 0x08, 0x09, 0x0f, 0x0e, 0x0c},
		{0x08, 0x08, 0x09, 0x19, 0x00, 0x09},
	}
	taken := 0
	for _, seed := range seeds {
		h, r := fuzzAttrs(seed, "v\xfe\u2029", 1.5e-7)
		if assertSameEncoding(t, h, r) {
			taken++
		}
	}
	if taken < 4 {
		t.Fatalf("the builder took %d of %d seed records", taken, len(seeds))
	}
	var buf bytes.Buffer
	rec := &recordingHandler{}
	goldenRecords(slog.New(rec))
	for _, r := range rec.records {
		if !assertSameEncoding(t, NewHandler(&buf, Options{Chain: "c"}), r) {
			t.Logf("golden record %q takes the general path", r.Message)
		}
	}
}

// FuzzBuilderMatchesReference: on any record the builder accepts, its
// encoding is byte for byte the general path's.
func FuzzBuilderMatchesReference(f *testing.F) {
	f.Add([]byte{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77}, "x", 0.1)
	f.Add([]byte{0x08, 0x00, 0x19, 0x0b, 0x2a, 0x0c}, "\xff\u2028", 1e21)
	f.Add([]byte{0x3f, 0x2e, 0x1d, 0x0c, 0x4b, 0x5a}, "", -0.0)
	f.Fuzz(func(t *testing.T, data []byte, s string, x float64) {
		h, r := fuzzAttrs(data, s, x)
		assertSameEncoding(t, h, r)
	})
}

// recordingHandler keeps every record it is given.
type recordingHandler struct{ records []slog.Record }

func (*recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	h.records = append(h.records, r.Clone())
	return nil
}
func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler      { return h }
