package revocation

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// formatEvent is the Go twin of the payloads the Lua scripts publish.
func formatEvent(e event) string {
	tag := ""
	if e.nonce != "" {
		tag = "n:" + e.nonce + ":"
	}
	if e.principal {
		return fmt.Sprintf("%sp:%d:%d:%s", tag, e.beforeMs, e.untilMs, e.name)
	}
	return fmt.Sprintf("%si:%d:%s", tag, e.untilMs, e.name)
}

// describe renders a parse outcome for golden files.
func describe(e event, err error) string {
	tag := ""
	if e.nonce != "" {
		tag = " nonce=" + e.nonce
	}
	switch {
	case err != nil:
		return "error: " + err.Error()
	case e.principal:
		return fmt.Sprintf("principal %q before=%d until=%d%s", e.name, e.beforeMs, e.untilMs, tag)
	}
	return fmt.Sprintf("id %q until=%d%s", e.name, e.untilMs, tag)
}

// describeKey renders a parsed key for golden files.
func describeKey(principal bool, name string, err error) string {
	switch {
	case err != nil:
		return "error: " + err.Error()
	case principal:
		return fmt.Sprintf("principal %q", name)
	}
	return fmt.Sprintf("id %q", name)
}

// eventInputs cover the grammar and the attacks on it: wrong kinds, signs,
// spaces, overflow, invalid names, injected separators.
var eventInputs = []string{
	"i:1700000000000:rv_AAAAAAAAAAAAAAAAAAAAAA",
	"i:9223372036854775807:rv_max",
	"i:0:rv_zero",
	"i:1700000000000:rv_with:colons:inside",
	"p:1700000000000:1700003600000:user:alice@example.com",
	"p:1:2:principal with spaces",
	"",
	"i",
	"i:",
	"i:1700000000000",
	"i:1700000000000:",
	"i:-1:rv_negative",
	"i:+1:rv_plus",
	"i: 1:rv_space",
	"i:1e3:rv_exp",
	"i:9223372036854775808:rv_overflow",
	"i:00000000000000000001:rv_twenty_digits",
	"i:1:rv bad",
	"i:1:rv_\nnewline",
	"x:1:rv_kind",
	"I:1:rv_upper",
	"p:1:rv_missing_until",
	"p:1:2:",
	"p:1:2:user:\x00nul",
	"p:1:2:user:\xff",
	"p:a:2:user:a",
	"revoke-everything",
	"n:0123456789abcdef0123456789abcdef:i:1700000000000:rv_AAAAAAAAAAAAAAAAAAAAAA",
	"n:0123456789abcdef0123456789abcdef:p:1:2:user:alice@example.com",
	"n:0123456789abcdef0123456789abcdef:i:1:rv_with:colons",
	"n:0123456789ABCDEF0123456789ABCDEF:i:1:rv_upper_nonce",
	"n:0123456789abcdef0123456789abcde:i:1:rv_short_nonce",
	"n:0123456789abcdef0123456789abcdef0:i:1:rv_long_nonce",
	"n:0123456789abcdef0123456789abcdeg:i:1:rv_not_hex",
	"n:0123456789abcdef0123456789abcdef:n:0123456789abcdef0123456789abcdef:i:1:rv_twice",
	"n:0123456789abcdef0123456789abcdef:",
	"n:0123456789abcdef0123456789abcdef",
	"n::i:1:rv_empty_nonce",
	"n:",
	"N:0123456789abcdef0123456789abcdef:i:1:rv_upper_kind",
}

// ackInputs are payloads of the acknowledgement channel.
var ackInputs = []string{
	"0123456789abcdef0123456789abcdef:fedcba9876543210fedcba9876543210",
	"0123456789abcdef0123456789abcdef:fedcba9876543210fedcba9876543210:extra",
	"0123456789abcdef0123456789abcdef:",
	":fedcba9876543210fedcba9876543210",
	"0123456789abcdef0123456789abcdef",
	"0123456789ABCDEF0123456789ABCDEF:fedcba9876543210fedcba9876543210",
	"0123456789abcdef0123456789abcdef:fedcba9876543210fedcba987654321",
	"0123456789abcdef0123456789abcdef :fedcba9876543210fedcba9876543210",
	"",
}

// keyInputs are scanned key names under the prefix "capgate:".
var keyInputs = []string{
	"capgate:rev:i:rv_AAAAAAAAAAAAAAAAAAAAAA",
	"capgate:rev:p:user:alice@example.com",
	"capgate:rev:i:",
	"capgate:rev:p:",
	"capgate:rev:i:rv bad",
	"capgate:rev:x:rv_a",
	"capgate:rev:events",
	"other:rev:i:rv_a",
	"capgate:rev:i:rv_a\r\n",
}

func TestWireGolden(t *testing.T) {
	var b strings.Builder
	for _, in := range eventInputs {
		e, err := parseEvent(in)
		fmt.Fprintf(&b, "event %q\n  %s\n", in, describe(e, err))
	}
	keys := keyspace{prefix: DefaultPrefix}
	for _, in := range keyInputs {
		p, name, err := keys.parseKey(in)
		fmt.Fprintf(&b, "key %q\n  %s\n", in, describeKey(p, name, err))
	}
	for _, in := range ackInputs {
		nonce, replica, err := parseAck(in)
		if err != nil {
			fmt.Fprintf(&b, "ack %q\n  error: %v\n", in, err)
			continue
		}
		fmt.Fprintf(&b, "ack %q\n  nonce=%s replica=%s\n", in, nonce, replica)
	}
	fmt.Fprintf(&b, "match %q\n", keyspace{prefix: `we*rd?[x]\:`}.match())
	golden(t, "wire.golden", b.String())
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs; got:\n%s", path, got)
	}
}

func TestParseEventErrors(t *testing.T) {
	for _, in := range eventInputs {
		e, err := parseEvent(in)
		if err != nil {
			if !errors.Is(err, ErrMalformedEvent) {
				t.Errorf("parseEvent(%q) = %v, want ErrMalformedEvent", in, err)
			}
			continue
		}
		if again, err := parseEvent(formatEvent(e)); err != nil || again != e {
			t.Errorf("round trip of %q: %+v, %v; want %+v", in, again, err, e)
		}
	}
}

func FuzzParseEvent(f *testing.F) {
	for _, in := range eventInputs {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		e, err := parseEvent(in)
		if err != nil {
			if !errors.Is(err, ErrMalformedEvent) {
				t.Fatalf("parseEvent(%q) = %v, not ErrMalformedEvent", in, err)
			}
			return
		}
		if e.untilMs < 0 || e.beforeMs < 0 {
			t.Fatalf("parseEvent(%q) gave negative times %+v", in, e)
		}
		if e.nonce != "" && !isToken(e.nonce) {
			t.Fatalf("parseEvent(%q) accepted the nonce %q", in, e.nonce)
		}
		valid := validateID(e.name)
		if e.principal {
			valid = validatePrincipal(e.name)
		}
		if valid != nil {
			t.Fatalf("parseEvent(%q) accepted an invalid name: %v", in, valid)
		}
		if again, err := parseEvent(formatEvent(e)); err != nil || again != e {
			t.Fatalf("round trip of %q: %+v, %v; want %+v", in, again, err, e)
		}
	})
}

// TestParseAckErrors: every refusal is ErrMalformedEvent, and what is
// accepted round-trips.
func TestParseAckErrors(t *testing.T) {
	for _, in := range ackInputs {
		nonce, replica, err := parseAck(in)
		if err != nil {
			if !errors.Is(err, ErrMalformedEvent) {
				t.Errorf("parseAck(%q) = %v, want ErrMalformedEvent", in, err)
			}
			continue
		}
		if got := formatAck(nonce, replica); got != in {
			t.Errorf("round trip of %q gave %q", in, got)
		}
	}
}

func FuzzParseAck(f *testing.F) {
	for _, in := range ackInputs {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		nonce, replica, err := parseAck(in)
		if err != nil {
			if !errors.Is(err, ErrMalformedEvent) {
				t.Fatalf("parseAck(%q) = %v, not ErrMalformedEvent", in, err)
			}
			return
		}
		if !isToken(nonce) || !isToken(replica) || formatAck(nonce, replica) != in {
			t.Fatalf("parseAck(%q) = %q, %q", in, nonce, replica)
		}
	})
}

func FuzzParseKey(f *testing.F) {
	for _, in := range keyInputs {
		f.Add(in)
	}
	keys := keyspace{prefix: DefaultPrefix}
	f.Fuzz(func(t *testing.T, in string) {
		principal, name, err := keys.parseKey(in)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("parseKey(%q) = %v, not ErrCorrupt", in, err)
			}
			return
		}
		want := keys.id(name)
		if principal {
			want = keys.principal(name)
		}
		if want != in {
			t.Fatalf("parseKey(%q) = %v %q, which names %q", in, principal, name, want)
		}
	})
}

func FuzzParseMilli(f *testing.F) {
	for _, in := range []string{"0", "1700000000000", "9223372036854775807", "9223372036854775808", "-1", "+1", " 1", "1.5", "", "007"} {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		n, err := parseMilli(in)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("parseMilli(%q) = %v, not ErrCorrupt", in, err)
			}
			return
		}
		if n < 0 || strings.TrimLeft(in, "0") != strings.TrimLeft(strconv.FormatInt(n, 10), "0") {
			t.Fatalf("parseMilli(%q) = %d", in, n)
		}
	})
}
