package audit

import (
	"bytes"
	"errors"
	"testing"

	"github.com/capgate/capgate/gateway/audit/siem"
)

// TestUnwrap: a canonical line is itself; an OCSF record gives back the
// very event it was rendered from; a record whose mapped fields differ
// from its event is ErrTampered; what is not a JSON object is
// ErrMalformed.
func TestUnwrap(t *testing.T) {
	line := []byte(writeEvents(t, "r1", 1)[0])
	r, err := siem.NewRenderer(siem.OCSF, "v1")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.Render(line)
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Replace(rec, []byte(`"log_name":"r1"`), []byte(`"log_name":"r2"`), 1)
	if bytes.Equal(tampered, rec) {
		t.Fatalf("the record has no log_name to change: %s", rec)
	}
	tests := []struct {
		name    string
		in      []byte
		want    []byte
		wantErr error
	}{
		{"canonical", line, line, nil},
		{"ocsf", rec, line, nil},
		{"ocsf with a mapped field changed", tampered, nil, ErrTampered},
		{"not json", []byte("CEF:0|capgate|capgate|v1|e|e|3|"), nil, ErrMalformed},
		{"an array", []byte("[1]"), nil, ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Unwrap(tt.in)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if !bytes.Equal(got, tt.want) {
				t.Errorf("got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// FuzzUnwrap: Unwrap never panics, fails only with ErrMalformed or
// ErrTampered, and what it returns is the input itself or parses as an
// object (the event an OCSF record carries; Verify checks its fields).
func FuzzUnwrap(f *testing.F) {
	line := []byte(writeEvents(f, "r1", 1)[0])
	f.Add(line)
	if r, err := siem.NewRenderer(siem.OCSF, "v1"); err == nil {
		if rec, err := r.Render(line); err == nil {
			f.Add(rec)
		}
	}
	f.Add([]byte(`{"unmapped":{"capgate":{"event":"e"}}}`))
	f.Add([]byte(`{"unmapped":{"capgate":1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Unwrap(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTampered) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if bytes.Equal(got, data) {
			return
		}
		if _, err := parseObject(got); err != nil {
			t.Fatalf("Unwrap gave a line that does not parse: %v", err)
		}
	})
}
