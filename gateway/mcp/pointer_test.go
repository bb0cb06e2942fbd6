package mcp_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/capgate/capgate/gateway/mcp"
)

func TestParsePointer(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr error
	}{
		{in: "/path", want: []string{"path"}},
		{in: "/files/0", want: []string{"files", "0"}},
		{in: "/a~1b/c~0d", want: []string{"a/b", "c~d"}},
		{in: "/~01", want: []string{"~1"}},
		{in: "/", want: []string{""}},
		{in: "", wantErr: mcp.ErrPointer},
		{in: "path", wantErr: mcp.ErrPointer},
		{in: "/a~2", wantErr: mcp.ErrPointer},
		{in: "/a~", wantErr: mcp.ErrPointer},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, err := mcp.ParsePointer(tt.in)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("ParsePointer(%q) error %v, want %v", tt.in, err, tt.wantErr)
			}
			if err == nil && !slices.Equal(p.Tokens(), tt.want) {
				t.Errorf("ParsePointer(%q) = %q, want %q", tt.in, p.Tokens(), tt.want)
			}
		})
	}
}

func TestIndex(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "7": 7, "12": 12, "01": -1, "-": -1, "": -1, "1a": -1, "99999999999999999999": -1} {
		got, ok := mcp.Index(in)
		if (want < 0) == ok || (ok && got != want) {
			t.Errorf("Index(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
}

// FuzzParsePointer: whatever the text, a pointer that parses prints back
// as the same text, and parses again to the same tokens.
func FuzzParsePointer(f *testing.F) {
	for _, s := range []string{"/path", "/a~1b/c~0d", "/", "//", "/~", "x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := mcp.ParsePointer(s)
		if err != nil {
			if !errors.Is(err, mcp.ErrPointer) {
				t.Fatalf("error %v does not wrap ErrPointer", err)
			}
			return
		}
		if p.String() != s {
			t.Fatalf("ParsePointer(%q).String() = %q", s, p.String())
		}
		again, err := mcp.ParsePointer(p.String())
		if err != nil || !slices.Equal(again.Tokens(), p.Tokens()) {
			t.Fatalf("reparse of %q: %v %q", s, err, again.Tokens())
		}
	})
}
