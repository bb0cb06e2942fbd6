package audit

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// FuzzVerify feeds arbitrary files to Verify: it must never panic, must
// fail only with a *LineError, and when it accepts a file every line's
// canonical form must be a fixed point.
func FuzzVerify(f *testing.F) {
	lines := writeEvents(f, "r1", 3)
	f.Add([]byte(joinLines(lines)))
	f.Add([]byte(joinLines(lines[1:])))
	f.Add([]byte(lines[0] + "\n" + lines[0] + "\n"))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte(`{"time":"2025-01-01T00:00:00Z","event":"e","chain":"c","seq":1,"prev":"","hash":"00"}`))
	f.Add([]byte("[[[[[[[[[[]]]]]]]]]]\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := Verify(bytes.NewReader(data))
		if err != nil {
			var le *LineError
			if !asLineError(err, &le) {
				t.Fatalf("Verify error is not a *LineError: %v", err)
			}
			return
		}
		if rep.Events > 0 && len(rep.Chains) == 0 {
			t.Fatalf("events without chains: %+v", rep)
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if line == "" {
				continue
			}
			canon, hash, err := Canonical([]byte(line))
			if err != nil {
				t.Fatalf("Canonical of a verified line: %v", err)
			}
			again, hash2, err := Canonical(canon)
			if err != nil || !bytes.Equal(again, canon) || hash2 != hash {
				t.Fatalf("canonical form is not a fixed point:\n%s\n%s", canon, again)
			}
		}
	})
}

// FuzzHandlerRoundTrip writes events with arbitrary keys, values and
// messages; whatever the handler writes must verify.
func FuzzHandlerRoundTrip(f *testing.F) {
	f.Add("capability.invoke", "principal", "user:alice", "seq", 1.5)
	f.Add("e\xff", "k\xfe", "\u2028\x00<>&", "hash", -0.0)
	f.Add("", "", "", "", 1e308)
	f.Fuzz(func(t *testing.T, msg, k1, v1, k2 string, num float64) {
		var buf bytes.Buffer
		log := slog.New(NewHandler(&buf, Options{Chain: k2 + "\xff"}))
		log.Info(msg, k1, v1, k2, num, slog.Group(k1, k2, v1))
		log.With(k2, v1).WithGroup(k1).Info(msg, k1, []string{v1, k2})
		if _, err := Verify(&buf); err != nil {
			t.Fatalf("Verify of handler output: %v", err)
		}
	})
}

func asLineError(err error, le **LineError) bool {
	e, ok := err.(*LineError)
	*le = e
	return ok
}

// FuzzAppendCleanString holds the one-pass string encoder equal to
// cleaning first and encoding after, for any bytes: valid UTF-8, invalid
// sequences, escapes and the line separators.
func FuzzAppendCleanString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c\n\t\x01", "\xff", "ok\xc3", "\u2028\u2029", "é\xed\xa0\x80z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		prefix := []byte(`{"k":`)
		got := appendCleanString(prefix, s)
		want := appendString([]byte(`{"k":`), clean(s))
		if !bytes.Equal(got, want) {
			t.Fatalf("appendCleanString(%q) = %s, want %s", s, got, want)
		}
	})
}
