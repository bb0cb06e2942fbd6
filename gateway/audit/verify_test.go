package audit

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestVerifyIntact(t *testing.T) {
	lines := writeEvents(t, "r1", 5)
	rep, err := Verify(strings.NewReader(joinLines(lines)))
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if rep.Events != 5 || len(rep.Chains) != 1 {
		t.Fatalf("report %+v; want 5 events in 1 chain", rep)
	}
	c := rep.Chains[0]
	if c.Chain != "r1" || c.First != 1 || c.Last != 5 || c.Events != 5 || c.Segments != 1 || c.Trimmed {
		t.Fatalf("chain report %+v", c)
	}
	if !strings.Contains(lines[4], `"hash":"`+c.Head+`"`) {
		t.Fatalf("head %s is not the last line's hash", c.Head)
	}
}

// TestVerifyAttacks edits an intact five-event file and checks that
// Verify fails at the right line with the right sentinel.
func TestVerifyAttacks(t *testing.T) {
	base := writeEvents(t, "r1", 5)
	other := writeEvents(t, "r2", 2)
	tests := []struct {
		name     string
		edit     func([]string) []string
		wantErr  error
		wantLine int
	}{
		{"flip decision", func(l []string) []string {
			l[2] = strings.Replace(l[2], `"decision":"allow"`, `"decision":"deny"`, 1)
			return l
		}, ErrTampered, 3},
		{"change principal", func(l []string) []string {
			l[1] = strings.Replace(l[1], "alice", "mallory", 1)
			return l
		}, ErrTampered, 2},
		{"change latency number", func(l []string) []string {
			l[0] = strings.Replace(l[0], `"latency_ms":1.25`, `"latency_ms":1.250`, 1)
			return l
		}, ErrTampered, 1},
		{"add attribute", func(l []string) []string {
			l[3] = strings.Replace(l[3], `{`, `{"approved_by":"admin",`, 1)
			return l
		}, ErrTampered, 4},
		{"remove attribute", func(l []string) []string {
			l[3] = strings.Replace(l[3], `"agent":"documents",`, ``, 1)
			return l
		}, ErrTampered, 4},
		{"delete middle line", func(l []string) []string { return slices.Delete(l, 2, 3) }, ErrTampered, 3},
		{"delete first line", func(l []string) []string { return l[1:] }, ErrTampered, 1},
		{"swap two lines", func(l []string) []string { l[1], l[2] = l[2], l[1]; return l }, ErrTampered, 2},
		{"repeat a line", func(l []string) []string { return slices.Insert(l, 3, l[2]) }, ErrTampered, 4},
		{"move last to front", func(l []string) []string { return append([]string{l[4]}, l[:4]...) }, ErrTampered, 1},
		{"splice another chain's event with this chain id", func(l []string) []string {
			return slices.Insert(l, 2, strings.Replace(other[1], `"chain":"r2"`, `"chain":"r1"`, 1))
		}, ErrTampered, 3},
		{"duplicate key, last value authentic", func(l []string) []string {
			l[2] = strings.Replace(l[2], `{`, `{"decision":"allow",`, 1)
			return l
		}, ErrMalformed, 3},
		{"not JSON", func(l []string) []string { l[1] = "hello"; return l }, ErrMalformed, 2},
		{"empty line", func(l []string) []string { return slices.Insert(l, 1, "") }, ErrMalformed, 2},
		{"truncated line", func(l []string) []string { l[4] = l[4][:len(l[4])/2]; return l }, ErrMalformed, 5},
		{"two objects on a line", func(l []string) []string { l[0] += "{}"; return l }, ErrMalformed, 1},
		{"hash missing", func(l []string) []string {
			i := strings.Index(l[1], `"hash":`)
			l[1] = l[1][:i] + l[1][i+len(`"hash":"`)+65:]
			return l
		}, ErrMalformed, 2},
		{"invalid UTF-8", func(l []string) []string {
			l[2] = strings.Replace(l[2], "alice", "al\xffce", 1)
			return l
		}, ErrMalformed, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := tt.edit(slices.Clone(base))
			_, err := Verify(strings.NewReader(joinLines(lines)))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Verify = %v; want %v", err, tt.wantErr)
			}
			var le *LineError
			if !errors.As(err, &le) || le.Line != tt.wantLine {
				t.Fatalf("Verify = %v; want it to name line %d", err, tt.wantLine)
			}
		})
	}
}

// TestVerifyRecomputedHashStillNeedsLinks shows that recomputing the hash
// of an edited line is not enough: the next line's prev gives it away.
func TestVerifyRecomputedHashStillNeedsLinks(t *testing.T) {
	lines := writeEvents(t, "r1", 3)
	edited := strings.Replace(lines[1], `"decision":"deny"`, `"decision":"allow"`, 1)
	lines[1] = rehash(t, edited)
	_, err := Verify(strings.NewReader(joinLines(lines)))
	var le *LineError
	if !errors.Is(err, ErrTampered) || !errors.As(err, &le) || le.Line != 3 {
		t.Fatalf("Verify = %v; want tampering at line 3", err)
	}
}

// rehash replaces a line's hash with the one its content calls for.
func rehash(t *testing.T, line string) string {
	t.Helper()
	_, h, err := Canonical([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(line, `"hash":"`) + len(`"hash":"`)
	return line[:i] + h + line[i+64:]
}

func TestVerifyToleratesReformatting(t *testing.T) {
	lines := writeEvents(t, "r1", 2)
	// What a log shipper may do: reorder members and add whitespace.
	lines[0] = strings.Replace(lines[0], `{`, `{ `, 1)
	lines[0] = strings.Replace(lines[0], `"agent":"documents",`, ``, 1)
	lines[0] = strings.TrimSuffix(lines[0], "}") + ` , "agent" : "documents" }`
	lines[1] += "\r"
	if _, err := Verify(strings.NewReader(joinLines(lines))); err != nil {
		t.Fatalf("Verify of a reformatted file: %v", err)
	}
}

func TestVerifyInterleavedChainsAndRestarts(t *testing.T) {
	a, b := writeEvents(t, "r1", 3), writeEvents(t, "r2", 2)
	restart := writeEvents(t, "r1", 2) // r1 restarted: seq 1 again
	lines := []string{a[0], b[0], a[1], a[2], b[1], restart[0], restart[1]}
	rep, err := Verify(strings.NewReader(joinLines(lines)))
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if rep.Events != 7 || len(rep.Chains) != 2 || rep.Chains[0].Segments != 2 || rep.Chains[1].Events != 2 {
		t.Fatalf("report %+v", rep)
	}
}

func TestVerifyWithTrimmedStart(t *testing.T) {
	lines := writeEvents(t, "r1", 5)[2:]
	if _, err := Verify(strings.NewReader(joinLines(lines))); !errors.Is(err, ErrTampered) {
		t.Fatalf("strict Verify of a rotated tail = %v; want ErrTampered", err)
	}
	rep, err := VerifyWith(strings.NewReader(joinLines(lines)), VerifyOptions{AllowTrimmedStart: true})
	if err != nil || rep.Chains[0].First != 3 || !rep.Chains[0].Trimmed {
		t.Fatalf("VerifyWith = %+v, %v", rep, err)
	}
	// Trimming the start does not excuse a hole later on.
	lines = slices.Delete(lines, 1, 2)
	if _, err := VerifyWith(strings.NewReader(joinLines(lines)), VerifyOptions{AllowTrimmedStart: true}); !errors.Is(err, ErrTampered) {
		t.Fatalf("VerifyWith of a holed tail = %v; want ErrTampered", err)
	}
}

func TestVerifyDuplicates(t *testing.T) {
	lines := writeEvents(t, "r1", 3)
	dup := []string{lines[0], lines[1], lines[0], lines[1], lines[2], lines[2]}
	if _, err := Verify(strings.NewReader(joinLines(dup))); !errors.Is(err, ErrTampered) {
		t.Fatalf("strict Verify with duplicates = %v; want ErrTampered", err)
	}
	rep, err := VerifyWith(strings.NewReader(joinLines(dup)), VerifyOptions{AllowDuplicates: true})
	if err != nil || rep.Events != 3 || rep.Duplicates != 3 {
		t.Fatalf("VerifyWith = %+v, %v; want 3 events, 3 duplicates", rep, err)
	}
}

func TestVerifyEmptyAndOversized(t *testing.T) {
	rep, err := Verify(strings.NewReader(""))
	if err != nil || rep.Events != 0 {
		t.Fatalf("Verify(empty) = %+v, %v", rep, err)
	}
	huge := writeEvents(t, "r1", 1)[0] + "\n" + strings.Repeat("x", MaxLineBytes+10) + "\n"
	_, err = Verify(strings.NewReader(huge))
	var le *LineError
	if !errors.Is(err, ErrMalformed) || !errors.As(err, &le) || le.Line != 2 {
		t.Fatalf("Verify(oversized) = %v; want ErrMalformed at line 2", err)
	}
}

func TestVerifierGaps(t *testing.T) {
	lines := writeEvents(t, "r1", 6)
	tests := []struct {
		name    string
		feed    func(v *Verifier) error
		wantErr error
	}{
		{"declared gap", func(v *Verifier) error {
			return firstErr(v.Line([]byte(lines[0])), v.gap("r1", Gap{1, 4}), v.Line([]byte(lines[3])), v.Line([]byte(lines[4])))
		}, nil},
		{"stream starting with a gap", func(v *Verifier) error {
			return firstErr(v.gap("r1", Gap{0, 3}), v.Line([]byte(lines[2])))
		}, nil},
		{"gap not where the chain is", func(v *Verifier) error {
			return firstErr(v.Line([]byte(lines[0])), v.gap("r1", Gap{2, 4}))
		}, ErrTampered},
		{"event after a gap with the wrong seq", func(v *Verifier) error {
			return firstErr(v.Line([]byte(lines[0])), v.gap("r1", Gap{1, 4}), v.Line([]byte(lines[4])))
		}, ErrTampered},
		{"two gaps in a row", func(v *Verifier) error {
			return firstErr(v.Line([]byte(lines[0])), v.gap("r1", Gap{1, 3}), v.gap("r1", Gap{2, 4}))
		}, ErrTampered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := NewVerifier(VerifyOptions{AllowDuplicates: true})
			if err := tt.feed(v); !errors.Is(err, tt.wantErr) {
				t.Fatalf("got %v; want %v", err, tt.wantErr)
			}
		})
	}
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
