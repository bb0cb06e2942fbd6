package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenRecords logs the records pinned by testdata/canonical.golden.
func goldenRecords(log *slog.Logger) []string {
	ctx := context.Background()
	names := []string{}
	logf := func(name string, msg string, attrs ...slog.Attr) {
		names = append(names, name)
		log.LogAttrs(ctx, slog.LevelInfo, msg, attrs...)
	}
	logf("issue", "capability.issue",
		slog.String("principal", "user:alice@example.com"), slog.String("agent", "documents"),
		slog.Any("grants", []string{"documents:read"}), slog.String("purpose", "Q1 summary"),
		slog.String("policy_revision", "rev-7"), slog.Any("capability_ids", []string{"cap_1"}),
		slog.String("decision", "allow"))
	logf("strings", "capability.invoke",
		slog.String("html", `<a href="x">&</a>`), slog.String("controls", "tab\tnl\ncr\r\x01\x1f"),
		slog.String("separators", "\u2028\u2029"), slog.String("unicode", "résumé ☃ 𝄞"),
		slog.String("invalid_utf8", "a\xffb\xc3"), slog.String("quote", `"\`))
	logf("numbers", "capability.invoke",
		slog.Int64("int_min", math.MinInt64), slog.Uint64("uint_max", math.MaxUint64),
		slog.Float64("latency_ms", 0.1), slog.Float64("big", 1e21), slog.Float64("tiny", 1e-7),
		slog.Float64("nan", math.NaN()), slog.Float64("inf", math.Inf(-1)),
		slog.Duration("took", 1500*time.Microsecond), slog.Bool("ok", true))
	logf("reserved keys and duplicates", "capability.revoke",
		slog.String("seq", "forged"), slog.String("hash", "forged"), slog.String("prev", "forged"),
		slog.String("decision", "deny"), slog.String("decision", "allow"), slog.String("decision#2", "x"))
	logf("groups and any", "a2e.handshake",
		slog.Group("session", slog.String("id", "s1"), slog.Group("empty")),
		slog.Group("", slog.String("inlined", "yes")),
		slog.Any("err", errors.New("boom")), slog.Any("nil", nil),
		slog.Any("map", map[string]any{"b": 1, "a": []int{2, 3}}),
		slog.Time("at", time.Date(2025, 1, 2, 3, 4, 5, 6, time.FixedZone("X", 3600))))
	return names
}

func TestCanonicalGolden(t *testing.T) {
	var buf bytes.Buffer
	names := goldenRecords(slog.New(NewHandler(&buf, Options{Chain: "golden", Now: testClock()})))
	lines := splitLines(buf.String())
	var got strings.Builder
	for i, line := range lines {
		canon, hash, err := Canonical([]byte(line))
		if err != nil {
			t.Fatalf("Canonical(%s): %v", names[i], err)
		}
		if !strings.Contains(line, `"hash":"`+hash+`"`) {
			t.Errorf("%s: written hash is not the canonical hash %s", names[i], hash)
		}
		fmt.Fprintf(&got, "# %s\n%s\n%s\n", names[i], line, canon)
	}
	if _, err := Verify(strings.NewReader(buf.String())); err != nil {
		t.Fatalf("Verify(golden records): %v", err)
	}
	path := filepath.Join("testdata", "canonical.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got.String() != string(want) {
		t.Errorf("canonical encoding changed; diff against %s:\n%s", path, got.String())
	}
}

func TestHandlerWithAttrsAndGroups(t *testing.T) {
	var buf bytes.Buffer
	base := slog.New(NewHandler(&buf, Options{Chain: "r1", Now: testClock()}))
	log := base.With("replica", "r1").WithGroup("req").With("agent", "documents")
	log.Info("capability.invoke", "skill", "retrieve_document")
	base.WithGroup("unused").Info("capability.revoke")
	lines := splitLines(buf.String())
	var ev map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &ev); err != nil {
		t.Fatal(err)
	}
	req, _ := ev["req"].(map[string]any)
	if ev["replica"] != "r1" || req["agent"] != "documents" || req["skill"] != "retrieve_document" {
		t.Fatalf("event %s", lines[0])
	}
	if strings.Contains(lines[1], "unused") {
		t.Fatalf("an empty group was written: %s", lines[1])
	}
	if _, err := Verify(strings.NewReader(buf.String())); err != nil {
		t.Fatalf("Verify: %v", err)
	}
}

func TestHandlerInvalidUTF8KeysDoNotCollide(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(NewHandler(&buf, Options{Chain: "r1"}))
	log.Info("capability.invoke", "k\xff", "a", "k\xfe", "b", "k\uFFFD", "c")
	if _, err := Verify(strings.NewReader(buf.String())); err != nil {
		t.Fatalf("Verify: %v\n%s", err, buf.String())
	}
	for _, want := range []string{`"k\ufffd":"a"`, `"k\ufffd#2":"b"`, `"k\ufffd#3":"c"`} {
		if !strings.Contains(buf.String(), strings.ReplaceAll(want, `\ufffd`, "\uFFFD")) {
			t.Errorf("missing %s in %s", want, buf.String())
		}
	}
}

func TestHandlerOversizedAttributes(t *testing.T) {
	var buf, diag bytes.Buffer
	log := slog.New(NewHandler(&buf, Options{Chain: "r1", Logger: slog.New(slog.NewTextHandler(&diag, nil))}))
	log.Info("capability.issue", "purpose", strings.Repeat("p", MaxLineBytes))
	log.Info("capability.issue", "purpose", "short")
	rep, err := Verify(strings.NewReader(buf.String()))
	if err != nil || rep.Events != 2 {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
	if !strings.Contains(buf.String(), `"attrs_omitted":`) || !strings.Contains(diag.String(), "too large") {
		t.Fatalf("oversized event not replaced and logged:\n%.300s\n%s", buf.String(), diag.String())
	}
}

// failWriter fails every second write.
type failWriter struct {
	n   int
	buf bytes.Buffer
}

func (w *failWriter) Write(p []byte) (int, error) {
	w.n++
	if w.n%2 == 0 {
		return 0, errors.New("disk full")
	}
	return w.buf.Write(p)
}

func TestHandlerWriteFailureLeavesAVisibleGap(t *testing.T) {
	w := &failWriter{}
	var diag bytes.Buffer
	h := NewHandler(w, Options{Chain: "r1", Logger: slog.New(slog.NewTextHandler(&diag, nil))})
	ctx := context.Background()
	var errs []error
	for range 3 {
		r := slog.NewRecord(time.Now(), slog.LevelInfo, "capability.invoke", 0)
		errs = append(errs, h.Handle(ctx, r))
	}
	if errs[0] != nil || !errors.Is(errs[1], ErrWrite) || errs[2] != nil {
		t.Fatalf("Handle errors %v; want the second to wrap ErrWrite", errs)
	}
	if !strings.Contains(diag.String(), "not written") {
		t.Fatalf("write failure not logged: %s", diag.String())
	}
	_, err := Verify(&w.buf)
	var le *LineError
	if !errors.Is(err, ErrTampered) || !errors.As(err, &le) || le.Seq != 3 {
		t.Fatalf("Verify = %v; want the missing seq 2 to show at seq 3", err)
	}
}

func TestHandlerConcurrentWriters(t *testing.T) {
	var buf lockedBuffer
	h := NewHandler(&buf, Options{Chain: "r1"})
	const writers, each = 8, 200
	var wg sync.WaitGroup
	for w := range writers {
		log := slog.New(h).With("writer", w)
		wg.Go(func() {
			for i := range each {
				log.Info("capability.invoke", "i", i)
			}
		})
	}
	wg.Wait()
	rep, err := Verify(strings.NewReader(buf.String()))
	if err != nil || rep.Events != writers*each {
		t.Fatalf("Verify = %d events, %v; want %d, nil", rep.Events, err, writers*each)
	}
	if head := h.Head(); head.Seq != writers*each || head.Hash != rep.Chains[0].Head {
		t.Fatalf("Head %+v does not match the report %+v", head, rep.Chains[0])
	}
}

func TestHandlerRandomChainID(t *testing.T) {
	a, b := NewHandler(&bytes.Buffer{}, Options{}), NewHandler(&bytes.Buffer{}, Options{})
	if a.Head().Chain == b.Head().Chain || !strings.HasPrefix(a.Head().Chain, "chain-") {
		t.Fatalf("chain ids %q, %q", a.Head().Chain, b.Head().Chain)
	}
}
