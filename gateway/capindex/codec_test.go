package capindex_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/capindex/capindextest"
)

// codecRecord is a record with every field set.
func codecRecord(t testing.TB) capindex.Record {
	now := time.UnixMilli(1795553677123).UTC()
	return capindex.Record{
		CapabilityID: "cap_a", Token: capindextest.Token(t, "cap_a", "rh_2", "rh_1"), Principal: "user:alice@example.com",
		Holder: "agent:summarizer", Agent: "documents", Grant: "documents:read", ParentID: "cap_p",
		DisplayNames: []string{"Q1 Sales Report", "Q1 Financial Summary"},
		IssuedAt:     now, Expires: now.Add(time.Hour),
	}
}

// jsonForm is r in the JSON form records had before the binary one,
// whose display names are a map by handle.
func jsonForm(t testing.TB, r capindex.Record) []byte {
	c, _, err := captoken.UnsafeClaimsWithoutVerification(r.Token.String())
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for i, name := range r.DisplayNames {
		names[c.Handles[i]] = name
	}
	b, err := json.Marshal(map[string]any{
		"id": r.CapabilityID, "token": r.Token.String(), "principal": r.Principal, "holder": r.Holder,
		"agent": r.Agent, "grant": r.Grant, "parentId": r.ParentID, "displayNames": names,
		"issuedAt": r.IssuedAt, "expires": r.Expires,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRecordCodec(t *testing.T) {
	valid := codecRecord(t)
	bin, err := capindex.EncodeRecord(valid)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		data    []byte
		want    capindex.Record
		wantErr error
	}{
		{name: "binary form", data: bin, want: valid},
		{name: "json form", data: jsonForm(t, valid), want: valid},
		{name: "empty", data: nil, wantErr: capindex.ErrGarbled},
		{name: "unknown form", data: append([]byte{2}, bin[1:]...), wantErr: capindex.ErrGarbled},
		{name: "truncated", data: bin[:len(bin)-1], wantErr: capindex.ErrGarbled},
		{name: "trailing byte", data: append(bin[:len(bin):len(bin)], 0), wantErr: capindex.ErrGarbled},
		{name: "field past the end", data: []byte{1, 0xff, 0xff, 'c'}, wantErr: capindex.ErrGarbled},
		{name: "more names than bytes", data: withNames(bin, valid, 0xffff), wantErr: capindex.ErrGarbled},
		{name: "not UTF-8", data: replaceField(t, bin, "cap_p", "cap_\xff"), wantErr: capindex.ErrGarbled},
		{name: "name not UTF-8", data: replaceField(t, bin, "Q1 Sales Report", "Q1 Sales \xff"), wantErr: capindex.ErrGarbled},
		{name: "garbled token", data: replaceField(t, bin, string(tokenBinary(t, valid)), "x"), wantErr: capindex.ErrGarbled},
		{name: "garbled json", data: []byte(`{"id":`), wantErr: capindex.ErrGarbled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := capindex.DecodeRecord(tc.data)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("DecodeRecord() error = %v, want %v", err, tc.wantErr)
			}
			if err == nil && !capindextest.Equal(got, tc.want) {
				t.Errorf("DecodeRecord() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestRecordCodecJSONFormForgedToken(t *testing.T) {
	r := codecRecord(t)
	b := jsonForm(t, r)
	b = []byte(string(b[:len(b)-1]) + `,"token":"forged"}`)
	got, err := capindex.DecodeRecord(b)
	if err != nil || !got.Token.IsZero() || got.CapabilityID != r.CapabilityID {
		t.Fatalf("DecodeRecord() = %+v, %v: want the record with no token", got, err)
	}
}

// FuzzDecodeRecord feeds arbitrary values to the Redis record decoder:
// no panic; a binary record it accepts encodes back to the very same
// bytes, and a record of the JSON form survives the binary form.
func FuzzDecodeRecord(f *testing.F) {
	bin, err := capindex.EncodeRecord(codecRecord(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(bin)
	f.Add(jsonForm(f, codecRecord(f)))
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := capindex.DecodeRecord(data)
		if err != nil {
			if !errors.Is(err, capindex.ErrGarbled) {
				t.Fatalf("error %v is not ErrGarbled", err)
			}
			return
		}
		again, err := capindex.EncodeRecord(r)
		if err != nil {
			t.Fatalf("a decoded record does not encode: %v", err)
		}
		if data[0] != '{' && string(again) != string(data) {
			t.Fatalf("EncodeRecord(DecodeRecord(%x)) = %x", data, again)
		}
		back, err := capindex.DecodeRecord(again)
		if err != nil || !capindextest.Equal(back, r) {
			t.Fatalf("binary round trip: %+v, %v, want %+v", back, err, r)
		}
	})
}

// field is s as the binary form writes it: its length, then its bytes.
func field(s string) string { return string([]byte{byte(len(s) >> 8), byte(len(s))}) + s }

// replaceField returns bin with the field old written as new instead.
func replaceField(t *testing.T, bin []byte, old, new string) []byte {
	t.Helper()
	s := string(bin)
	if !strings.Contains(s, field(old)) {
		t.Fatalf("no field %q", old)
	}
	return []byte(strings.Replace(s, field(old), field(new), 1))
}

// withNames returns bin, the binary form of r, saying it has n display
// names.
func withNames(bin []byte, r capindex.Record, n uint16) []byte {
	r.DisplayNames = nil
	bare, _ := capindex.EncodeRecord(r)
	out := slices.Clone(bin)
	at := len(bare) - 16 - 2
	out[at], out[at+1] = byte(n>>8), byte(n)
	return out
}

// tokenBinary is the binary form of r's token.
func tokenBinary(t *testing.T, r capindex.Record) []byte {
	b, err := r.Token.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
