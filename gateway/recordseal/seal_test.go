package recordseal_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/capgate/capgate/gateway/recordseal"
)

var update = flag.Bool("update", false, "rewrite testdata/mac.golden")

type record struct {
	ID     string            `json:"id"`
	Status string            `json:"status"`
	Attrs  map[string]string `json:"attrs,omitempty"`
	MAC    string            `json:"mac,omitempty"`
}

var key = bytes.Repeat([]byte{0x5a}, recordseal.MinKeyBytes)

// TestMACEncoding pins the MAC of a fixed record under a fixed key: every
// record stored by an earlier gateway must still verify.
func TestMACEncoding(t *testing.T) {
	s, err := recordseal.New(key)
	if err != nil {
		t.Fatal(err)
	}
	mac, err := s.MAC(record{ID: "apr_abc", Status: "approved", Attrs: map[string]string{"b": "2", "a": "<1>"}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "mac.golden")
	if *update {
		if err := os.WriteFile(path, []byte(mac+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if mac+"\n" != string(want) {
		t.Fatalf("MAC %s, want %s", mac, want)
	}
}

func TestSealer(t *testing.T) {
	s, _ := recordseal.New(key)
	other, _ := recordseal.New(bytes.Repeat([]byte{0x5b}, recordseal.MinKeyBytes))
	r := record{ID: "apr_abc", Status: "pending"}
	mac, _ := s.MAC(r)
	tests := []struct {
		name   string
		sealer *recordseal.Sealer
		rec    any
		mac    string
		want   bool
	}{
		{"as sealed", s, r, mac, true},
		{"changed", s, record{ID: "apr_abc", Status: "approved"}, mac, false},
		{"another key", other, r, mac, false},
		{"no mac", s, r, "", false},
		{"does not encode", s, func() {}, mac, false},
	}
	for _, tc := range tests {
		if got := tc.sealer.Verify(tc.rec, tc.mac); got != tc.want {
			t.Errorf("%s: Verify = %v, want %v", tc.name, got, tc.want)
		}
	}
	if _, err := recordseal.New(key[:31]); !errors.Is(err, recordseal.ErrShortKey) {
		t.Errorf("a 31-byte key: %v, want ErrShortKey", err)
	}
}
