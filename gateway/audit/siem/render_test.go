package siem_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/audit"
	"github.com/capgate/capgate/gateway/audit/siem"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// trail writes a small trail of every kind of event, with values that
// CEF must escape, on a fixed clock: the same bytes every run.
func trail(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	h := audit.NewHandler(&buf, audit.Options{Chain: "replica-a"})
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	ctx := context.Background()
	events := []struct {
		name  string
		attrs []slog.Attr
	}{
		{"capability.issue", []slog.Attr{slog.String("principal", "user:alice@example.com"), slog.String("agent", "documents"),
			slog.Any("grants", []string{"documents:read"}), slog.Any("capability_ids", []string{"cap_1"}),
			slog.String("purpose", "Q1 | a=b \\ back\nslash"), slog.String("decision", "issued"), slog.String("policy_revision", "2119cbca7d8a")}},
		{"capability.invoke", []slog.Attr{slog.String("caller", "user:alice@example.com"), slog.String("holder", "user:alice@example.com"),
			slog.String("agent", "documents"), slog.String("capability_id", "cap_1"), slog.String("grant", "documents:read"),
			slog.String("operation", "retrieve"), slog.String("decision", "allowed")}},
		{"capability.invoke", []slog.Attr{slog.String("caller", "user:bob@example.com"), slog.String("agent", "documents"),
			slog.String("capability_id", "cap_1"), slog.String("decision", "holder_mismatch")}},
		{"capability.revoke", []slog.Attr{slog.String("caller", "user:alice@example.com"), slog.String("agent", "documents"),
			slog.String("capability_id", "cap_1"), slog.String("decision", "revoked")}},
		{"a2e.handshake", []slog.Attr{slog.String("principal", "user:alice@example.com"), slog.String("host", "lab"), slog.Bool("ok", true)}},
		{"a2e.handshake", []slog.Attr{slog.String("host", "lab"), slog.Bool("ok", false), slog.String("reason", "auth_failed")}},
		{"a2e.refusal", []slog.Attr{slog.String("principal", "user:alice@example.com"), slog.String("host", "lab"), slog.String("code", "capability_missing")}},
		{"admin.freeze", []slog.Attr{slog.String("admin", "user:admin@example.com"), slog.String("kind", "agent"), slog.String("name", "documents"),
			slog.String("reason", "INC|42=leak"), slog.String("decision", "frozen"), slog.Int("revoked", 1)}},
		{"approval.requested", []slog.Attr{slog.String("principal", "user:carol@example.com"), slog.String("agent", "documents"), slog.String("status", "pending")}},
		{"vendor|odd\\name", []slog.Attr{slog.String("decision", "allowed")}},
	}
	for i, e := range events {
		if err := h.Event(ctx, at.Add(time.Duration(i)*time.Second), e.name, e.attrs...); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// render renders every line of a trail.
func render(t *testing.T, f siem.Format, in []byte) [][]byte {
	t.Helper()
	r, err := siem.NewRenderer(f, "v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(in))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		rec, err := r.Render(sc.Bytes())
		if err != nil {
			t.Fatalf("render %s: %v", sc.Bytes(), err)
		}
		out = append(out, rec)
	}
	return out
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n%s", name, got)
	}
}

func TestGolden(t *testing.T) {
	in := trail(t)
	for _, f := range []siem.Format{siem.OCSF, siem.CEF} {
		golden(t, "trail."+string(f)+".golden", append(bytes.Join(render(t, f, in), []byte("\n")), '\n'))
	}
}

// TestOCSFValidates validates every record of the synthetic trail and of
// a trail the quickstart walkthrough wrote against the vendored OCSF
// schema of its class.
func TestOCSFValidates(t *testing.T) {
	s := loadSchema(t)
	demo, err := os.ReadFile("testdata/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	classes := map[int64]string{6003: "events/application/api_activity.json", 3002: "events/iam/authentication.json"}
	categories := map[int64]int64{6003: categoryUID(t, "application"), 3002: categoryUID(t, "iam")}
	seen := map[int64]int{}
	for _, rec := range render(t, siem.OCSF, append(trail(t), demo...)) {
		dec := json.NewDecoder(bytes.NewReader(rec))
		dec.UseNumber()
		var v map[string]any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		class, _ := v["class_uid"].(json.Number).Int64()
		activity, _ := v["activity_id"].(json.Number).Int64()
		typeUID, _ := v["type_uid"].(json.Number).Int64()
		category, _ := v["category_uid"].(json.Number).Int64()
		file, ok := classes[class]
		if !ok || category != categories[class] || typeUID != class*100+activity {
			t.Fatalf("class %d, category %d, type %d: %s", class, category, typeUID, rec)
		}
		seen[class]++
		def := s.load(t, file)
		if int64(def.uid) != class%1000 {
			t.Fatalf("class %d is uid %d in %s", class, def.uid, file)
		}
		if bad := s.validate(t, v, def, ""); len(bad) > 0 {
			t.Errorf("%s\n  %s", rec, strings.Join(bad, "\n  "))
		}
	}
	if seen[6003] == 0 || seen[3002] == 0 {
		t.Errorf("classes seen %v: both must be exercised", seen)
	}
}

// TestOCSFVerifiesAgainstTrail: the canonical events kept under
// unmapped.capgate verify as the trail does, chain and all, and each
// record's metadata names its chain position.
func TestOCSFVerifiesAgainstTrail(t *testing.T) {
	in := trail(t)
	var lines bytes.Buffer
	for i, rec := range render(t, siem.OCSF, in) {
		var v struct {
			Metadata struct {
				UID      string `json:"uid"`
				Sequence int    `json:"sequence"`
			} `json:"metadata"`
			Unmapped struct {
				Capgate json.RawMessage `json:"capgate"`
			} `json:"unmapped"`
		}
		if err := json.Unmarshal(rec, &v); err != nil {
			t.Fatal(err)
		}
		if v.Metadata.Sequence != i+1 || !strings.HasPrefix(v.Metadata.UID, "replica-a:") {
			t.Errorf("record %d says it is %s (%d)", i, v.Metadata.UID, v.Metadata.Sequence)
		}
		lines.Write(v.Unmapped.Capgate)
		lines.WriteByte('\n')
	}
	rep, err := audit.Verify(&lines)
	if err != nil || rep.Events != strings.Count(string(in), "\n") {
		t.Fatalf("verify: %v, %d events", err, rep.Events)
	}
}

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in      string
		want    siem.Format
		wantErr error
	}{
		{"", siem.Canonical, nil}, {"canonical", siem.Canonical, nil}, {"ocsf", siem.OCSF, nil},
		{"cef", siem.CEF, nil}, {"OCSF", "", siem.ErrFormat}, {"leef", "", siem.ErrFormat},
	}
	for _, tt := range tests {
		got, err := siem.ParseFormat(tt.in)
		if got != tt.want || !errors.Is(err, tt.wantErr) {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestRenderRefuses(t *testing.T) {
	r, err := siem.NewRenderer(siem.OCSF, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{``, `nope`, `[]`, `{"event":"x"}`, `{"event":"x","chain":"c","seq":"1","hash":"h","time":"2026-01-01T00:00:00Z"}`,
		`{"event":"x","chain":"c","seq":1,"hash":"h","time":"yesterday"}`, `{"event":"x","chain":"c","seq":1,"hash":"h","time":"2026-01-01T00:00:00Z"} {}`} {
		if _, err := r.Render([]byte(line)); !errors.Is(err, siem.ErrEvent) {
			t.Errorf("Render(%q) = %v, want ErrEvent", line, err)
		}
	}
}

// FuzzRender: whatever a line holds, each format either refuses it as no
// event or renders one line: OCSF a JSON object, CEF a CEF line.
func FuzzRender(f *testing.F) {
	for _, l := range bytes.Split(trail(&testing.T{}), []byte("\n")) {
		f.Add(l)
	}
	f.Add([]byte(`{"event":"a|b","chain":"c\n","seq":1,"hash":"=","time":"2026-01-01T00:00:00Z","purpose":"\\="}`))
	ocsf, _ := siem.NewRenderer(siem.OCSF, "v")
	cef, _ := siem.NewRenderer(siem.CEF, "v")
	f.Fuzz(func(t *testing.T, line []byte) {
		o, err := ocsf.Render(line)
		if err != nil {
			if !errors.Is(err, siem.ErrEvent) {
				t.Fatalf("OCSF: %v", err)
			}
			return
		}
		var v map[string]any
		if json.Unmarshal(o, &v) != nil || bytes.ContainsAny(o, "\n\r") {
			t.Fatalf("OCSF record is not one JSON object line: %q", o)
		}
		c, err := cef.Render(line)
		if err != nil || !bytes.HasPrefix(c, []byte("CEF:0|capgate|capgate|v|")) || bytes.ContainsAny(c, "\n\r") {
			t.Fatalf("CEF: %q, %v", c, err)
		}
	})
}

// categoryUID reads a category's uid from the vendored categories.json.
func categoryUID(t *testing.T, name string) int64 {
	t.Helper()
	var c struct {
		Attributes map[string]struct {
			UID int64 `json:"uid"`
		} `json:"attributes"`
	}
	readJSON(t, filepath.Join(schemaDir, "categories.json"), &c)
	uid := c.Attributes[name].UID
	if uid == 0 {
		t.Fatalf("no category %s", name)
	}
	return uid
}
