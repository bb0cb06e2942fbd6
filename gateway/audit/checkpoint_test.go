package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/go-jose/go-jose/v4"
)

// testKeys is a reproducible Ed25519 key set.
func testKeys(t testing.TB, seed byte) *captoken.KeySet {
	t.Helper()
	var s [32]byte
	s[0] = seed
	ks, err := captoken.GenerateKeySetFrom(jose.EdDSA, rand.NewChaCha8(s))
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// checkpointed logs n events on a handler checkpointing every `every`
// events, driven by tick, and closes it when closeIt is set.
func checkpointed(t testing.TB, ks Signer, every, n int, closeIt bool) []string {
	t.Helper()
	var buf lockedBuffer
	h := NewHandler(&buf, Options{Chain: "r1", Now: testClock(),
		Checkpoints: &Checkpoints{Signer: ks, Every: every, Tick: make(chan time.Time)}})
	log := slog.New(h)
	for i := range n {
		log.Info("capability.invoke", "principal", "user:alice@example.com", "n", i)
	}
	if closeIt {
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return splitLines(buf.String())
}

func verifyKeys(ks *captoken.KeySet, every int) VerifyOptions {
	jwks := ks.JWKS()
	return VerifyOptions{Keys: &jwks, CheckpointEvery: every}
}

func TestCheckpointGolden(t *testing.T) {
	ks := testKeys(t, 1)
	lines := checkpointed(t, ks, 2, 3, true)
	got := []byte(joinLines(lines))
	path := filepath.Join("testdata", "checkpoint.golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("checkpoint lines differ from %s:\n%s", path, got)
	}
	// events 1, 2, checkpoint (3), event 4, checkpoint by Close (5)
	rep, err := VerifyWith(bytes.NewReader(want), verifyKeys(ks, 2))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Events != 5 || rep.Checkpoints != 2 || rep.Chains[0].Unsigned != 0 || rep.Chains[0].Signed != 4 {
		t.Fatalf("report %+v", rep)
	}
	// Without keys the checkpoints are ordinary events of the chain.
	if rep, err := Verify(bytes.NewReader(want)); err != nil || rep.Events != 5 {
		t.Fatalf("plain Verify: %+v, %v", rep, err)
	}
}

// rewriteChain rewrites lines as someone without the key would: edit each
// parsed event, drop those edit rejects, renumber, relink and rehash.
func rewriteChain(t *testing.T, lines []string, edit func(obj map[string]any) bool) []string {
	t.Helper()
	var out []string
	prev, seq := "", 0
	for _, l := range lines {
		obj, err := parseObject([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		if !edit(obj) {
			continue
		}
		seq++
		obj[FieldSeq], obj[FieldPrev] = jsonNumber(seq), prev
		delete(obj, FieldHash)
		ms, err := encodeMembers(obj)
		if err != nil {
			t.Fatal(err)
		}
		prev = chainHash(ms)
		obj[FieldHash] = prev
		if ms, err = encodeMembers(obj); err != nil {
			t.Fatal(err)
		}
		out = append(out, string(join(ms, "")))
	}
	return out
}

func TestCheckpointDetectsRewrite(t *testing.T) {
	ks := testKeys(t, 1)
	lines := checkpointed(t, ks, 3, 7, true)
	forge := func(obj map[string]any) {
		if obj[FieldEvent] != CheckpointEvent {
			obj["principal"] = "user:mallory@example.com"
		}
	}
	dropCheckpoints := func(obj map[string]any) bool {
		forge(obj)
		return obj[FieldEvent] != CheckpointEvent
	}
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"rewritten and rehashed", rewriteChain(t, lines, func(obj map[string]any) bool { forge(obj); return true }),
			"not the event before it"},
		{"checkpoints dropped", rewriteChain(t, lines, dropCheckpoints), "without a checkpoint"},
		{"re-signed with another key", signAgain(t, rewriteChain(t, lines, dropCheckpoints), testKeys(t, 2), 3),
			"not one of the given keys"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Verify(strings.NewReader(joinLines(tc.lines))); err != nil {
				t.Fatalf("the forgery does not even hold as a hash chain: %v", err)
			}
			_, err := VerifyWith(strings.NewReader(joinLines(tc.lines)), verifyKeys(ks, 3))
			var le *LineError
			if !errors.Is(err, ErrTampered) || !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want ErrTampered %q", err, tc.want)
			}
		})
	}
}

// signAgain inserts checkpoints signed by ks every `every` events into a
// chain without checkpoints, by rewriting it through a real handler.
func signAgain(t *testing.T, lines []string, ks Signer, every int) []string {
	t.Helper()
	var buf bytes.Buffer
	h := NewHandler(&buf, Options{Chain: "r1", Now: testClock(),
		Checkpoints: &Checkpoints{Signer: ks, Every: every, Tick: make(chan time.Time)}})
	log := slog.New(h)
	for range lines {
		log.Info("capability.invoke", "principal", "user:mallory@example.com")
	}
	_ = h.Close()
	return splitLines(buf.String())
}

func TestCheckpointTruncatedTail(t *testing.T) {
	ks := testKeys(t, 1)
	lines := checkpointed(t, ks, 3, 5, false) // 3 events, checkpoint, 2 events
	rep, err := VerifyWith(strings.NewReader(joinLines(lines[:len(lines)-1])), verifyKeys(ks, 3))
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Chains[0]
	if rep.Checkpoints != 1 || c.Signed != 3 || c.Unsigned != 1 || c.Last != 5 {
		t.Fatalf("truncated tail reported as %+v", c)
	}
}

func TestCheckpointTimer(t *testing.T) {
	ks := testKeys(t, 1)
	tick := make(chan time.Time)
	var buf lockedBuffer
	h := NewHandler(&buf, Options{Chain: "r1", Now: testClock(), Checkpoints: &Checkpoints{Signer: ks, Tick: tick}})
	log := slog.New(h)
	log.Info("a")
	log.Info("b")
	tick <- time.Time{}
	tick <- time.Time{} // returns once the first tick is handled; nothing new to sign
	log.Info("c")
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	log.Info("after close")
	var names []string
	for _, l := range splitLines(buf.String()) {
		obj, _ := parseObject([]byte(l))
		names = append(names, obj[FieldEvent].(string))
	}
	want := "a b audit.checkpoint c audit.checkpoint after"
	if got := strings.Join(names, " "); !strings.HasPrefix(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
	if err := h.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
}

func TestCheckpointRefusals(t *testing.T) {
	ks := testKeys(t, 1)
	lines := checkpointed(t, ks, 2, 2, false) // 2 events and a checkpoint
	cp := lines[2]
	edit := func(f func(obj map[string]any)) []string {
		return rewriteChain(t, lines, func(obj map[string]any) bool {
			if obj[FieldEvent] == CheckpointEvent {
				f(obj)
			}
			return true
		})
	}
	other := testKeys(t, 2).JWKS()
	tests := []struct {
		name    string
		lines   []string
		opts    VerifyOptions
		wantErr error
	}{
		{"wrong key set", lines, VerifyOptions{Keys: &other}, ErrTampered},
		{"not a JWS", edit(func(o map[string]any) { o[FieldJWS] = "x.y.z" }), verifyKeys(ks, 2), ErrTampered},
		{"jws not a string", edit(func(o map[string]any) { o[FieldJWS] = jsonNumber(1) }), verifyKeys(ks, 2), ErrMalformed},
		{"extra member", edit(func(o map[string]any) { o["note"] = "x" }), verifyKeys(ks, 2), ErrMalformed},
		{"checkpoint of another chain", edit(func(o map[string]any) { o[FieldJWS] = signHead(t, ks, "r2", 2, "") }),
			verifyKeys(ks, 2), ErrTampered},
		{"wrong typ", edit(func(o map[string]any) { o[FieldJWS] = mustSign(t, ks, "cap+jws", `{}`) }),
			verifyKeys(ks, 2), ErrTampered},
		{"payload with extra claims", edit(func(o map[string]any) {
			o[FieldJWS] = mustSign(t, ks, CheckpointType, `{"chain":"r1","hash":"","seq":2,"x":1}`)
		}), verifyKeys(ks, 2), ErrTampered},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := VerifyWith(strings.NewReader(joinLines(tc.lines)), tc.opts)
			var le *LineError
			if !errors.Is(err, tc.wantErr) || !errors.As(err, &le) || le.Line != 3 {
				t.Fatalf("error = %v, want %v at line 3", err, tc.wantErr)
			}
		})
	}
	if _, err := VerifyWith(strings.NewReader(joinLines(lines)), verifyKeys(ks, 2)); err != nil || cp == "" {
		t.Fatalf("untouched lines: %v", err)
	}
}

func signHead(t *testing.T, ks Signer, chain string, seq int, hash string) string {
	t.Helper()
	return mustSign(t, ks, CheckpointType,
		`{"chain":"`+chain+`","hash":"`+hash+`","seq":`+string(jsonNumber(seq))+`}`)
}

func mustSign(t *testing.T, ks Signer, typ, payload string) string {
	t.Helper()
	jws, err := ks.SignJWS(typ, []byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	return jws
}

// FuzzVerifyCheckpoints feeds arbitrary files to a verifier with keys:
// no panic, and every failure is a *LineError.
func FuzzVerifyCheckpoints(f *testing.F) {
	ks := testKeys(f, 1)
	lines := checkpointed(f, ks, 2, 3, true)
	f.Add([]byte(joinLines(lines)))
	f.Add([]byte(joinLines(lines[2:])))
	f.Add([]byte(lines[2] + "\n"))
	f.Add([]byte(`{"time":"2025-01-01T00:00:00Z","event":"audit.checkpoint","chain":"c","seq":2,"prev":"","hash":"00","jws":"a.b.c"}`))
	opts := verifyKeys(ks, 2)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := VerifyWith(bytes.NewReader(data), opts)
		var le *LineError
		if err != nil && !errors.As(err, &le) {
			t.Fatalf("error is not a *LineError: %v", err)
		}
	})
}

// FuzzCheckpointJWS feeds arbitrary signatures to the checkpoint check.
func FuzzCheckpointJWS(f *testing.F) {
	ks := testKeys(f, 1)
	jws, err := ks.SignJWS(CheckpointType, []byte(`{"chain":"r1","hash":"","seq":1}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(jws)
	f.Add("e30.e30.")
	f.Add(`{"payload":"e30","signatures":[]}`)
	jwks := ks.JWKS()
	f.Fuzz(func(t *testing.T, s string) {
		p, err := verifyCheckpointJWS(s, &jwks)
		if err != nil && !errors.Is(err, ErrTampered) {
			t.Fatalf("error %v does not match ErrTampered", err)
		}
		if err == nil && p.Chain == "" && s != jws {
			t.Logf("accepted %q", s)
		}
	})
}

func jsonNumber(n int) json.Number { return json.Number(strconv.Itoa(n)) }
