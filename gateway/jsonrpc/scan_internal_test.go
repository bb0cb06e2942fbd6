package jsonrpc

import (
	"fmt"
	"strings"
	"testing"
)

// The byte loops the word-at-a-time scanners stand for.

func slowPlainEnd(d []byte, i int) int {
	for i < len(d) && isPlain(d[i]) {
		i++
	}
	return i
}

func slowQuoteEnd(d []byte, i int) int {
	for i < len(d) && d[i] != '"' && d[i] != '\\' {
		i++
	}
	return i
}

func slowStringEnd(d []byte, pos int) (end int, escaped, ok bool) {
	for i := pos + 1; i < len(d); i++ {
		switch d[i] {
		case '"':
			return i + 1, escaped, true
		case '\\':
			escaped = true
			i++
		}
	}
	return len(d), escaped, false
}

// checkScans compares every scanner with its byte loop on d, from every
// offset.
func checkScans(t *testing.T, d []byte) {
	t.Helper()
	for i := 0; i <= len(d); i++ {
		if got, want := plainEnd(d, i), slowPlainEnd(d, i); got != want {
			t.Fatalf("plainEnd(%q, %d) = %d, want %d", d, i, got, want)
		}
		if got, want := quoteEnd(d, i), slowQuoteEnd(d, i); got != want {
			t.Fatalf("quoteEnd(%q, %d) = %d, want %d", d, i, got, want)
		}
		if i < len(d) {
			e, esc, ok := stringEnd(d, i)
			we, wesc, wok := slowStringEnd(d, i)
			if e != we || esc != wesc || ok != wok {
				t.Fatalf("stringEnd(%q, %d) = %d %v %v, want %d %v %v", d, i, e, esc, ok, we, wesc, wok)
			}
		}
	}
}

func TestScans(t *testing.T) {
	long := strings.Repeat("plain text ", 5)
	tests := []struct{ name, in string }{
		{"empty", ""},
		{"short", `ab"`},
		{"plain run then quote", `"` + long + `" tail`},
		{"escape at a word's edge", `"1234567\"89abcdef"`},
		{"escape at the end", `"abcdefgh\`},
		{"every special byte", "\"abcdefg\x01hijklmn\x7fop\xc3\xa9qrstuv\\\\wxyz\""},
		{"unterminated", `"` + long},
		{"byte 0x80 and 0xff", "\"abcdefgh\x80ijklmnop\xffq\""},
		{"space 0x20 and 0x1f", "\"       \x1f       \" "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkScans(t, []byte(tt.in)) })
	}
}

// FuzzScans: the word-at-a-time scanners find what the byte loops find,
// from every offset of any text.
func FuzzScans(f *testing.F) {
	f.Add([]byte(`"hello world, this is long enough" x`))
	f.Add([]byte("\"\\\\\\\"\x00\x7f\x80\xff 01234567\""))
	f.Fuzz(func(t *testing.T, d []byte) {
		if len(d) > 256 {
			d = d[:256]
		}
		checkScans(t, d)
	})
}

// BenchmarkScans is each scanner over a long plain string, the bulk of a
// large answer: bytes per second is the figure.
func BenchmarkScans(b *testing.B) {
	for _, kib := range []int{1, 16, 256} {
		text := []byte(`"` + strings.Repeat("the quick brown fox jumps over the lazy dog ", (kib<<10)/44+1)[:kib<<10] + `"`)
		b.Run(fmt.Sprintf("plainEnd/%dKiB", kib), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if plainEnd(text, 1) != len(text)-1 {
					b.Fatal("wrong end")
				}
			}
		})
		b.Run(fmt.Sprintf("stringEnd/%dKiB", kib), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if end, _, _ := stringEnd(text, 0); end != len(text) {
					b.Fatal("wrong end")
				}
			}
		})
	}
}
