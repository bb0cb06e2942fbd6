package captoken

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"
)

func TestPackRoundTrip(t *testing.T) {
	ks := newTestKeySet(t, 1)
	tok := mustMint(t, ks, rootClaims(t0), rootResources())
	tests := []struct {
		name    string
		token   string
		wantErr error
	}{
		{name: "minted token", token: tok},
		{name: "short segments", token: "aGVhZA.cGF5bG9hZA.c2ln"},
		{name: "empty payload", token: "aGVhZA..c2ln"},
		{name: "empty", token: "", wantErr: ErrMalformed},
		{name: "two segments", token: "aGVhZA.cGF5bG9hZA", wantErr: ErrMalformed},
		{name: "four segments", token: tok + ".x", wantErr: ErrMalformed},
		{name: "empty header", token: ".cGF5bG9hZA.c2ln", wantErr: ErrMalformed},
		{name: "empty signature", token: "aGVhZA.cGF5bG9hZA.", wantErr: ErrMalformed},
		{name: "padding", token: "aGVhZA==.cGF5bG9hZA.c2ln", wantErr: ErrMalformed},
		{name: "newline inside", token: "aGVh\nZA.cGF5bG9hZA.c2ln", wantErr: ErrMalformed},
		{name: "standard alphabet", token: "aGVhZA.cGF5+G9hZA.c2ln", wantErr: ErrMalformed},
		{name: "non-zero trailing bits", token: "aGVhZB.cGF5bG9hZA.c2ln", wantErr: ErrMalformed},
		{name: "impossible length", token: "aGVhZ.cGF5bG9hZA.c2ln", wantErr: ErrMalformed},
		{name: "too large", token: strings.Repeat("A", MaxTokenSize-7) + ".AAAA.AAAA", wantErr: ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Pack(tc.token)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("Pack() error = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				if !p.IsZero() {
					t.Errorf("a failed Pack returned a token")
				}
				return
			}
			if got := p.String(); got != tc.token {
				t.Errorf("String() = %q, want %q", got, tc.token)
			}
			bin, err := p.AppendBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			var back Packed
			if err := back.UnmarshalBinary(bin); err != nil || back != p {
				t.Errorf("binary round trip: %v, %+v, want %+v", err, back, p)
			}
		})
	}
}

func TestPackedSize(t *testing.T) {
	tok := mustMint(t, newTestKeySet(t, 1), rootClaims(t0), rootResources())
	p, err := Pack(tok)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.payload) + len(p.sig); n*4 > (len(tok)-len(p.Header()))*3 {
		t.Errorf("packed %d bytes of a %d-byte token: not binary", n, len(tok))
	}
	if shared := strings.Clone(p.Header()); unsafe.StringData(p.WithHeader(shared).Header()) != unsafe.StringData(shared) ||
		p.WithHeader("x") != p {
		t.Error("WithHeader must swap in an equal header and nothing else")
	}
}

func TestPackedUnmarshalBinary(t *testing.T) {
	tests := []struct {
		name    string
		data    []byte
		wantErr error
	}{
		{name: "empty is no token", data: nil},
		{name: "one token", data: []byte("\x00\x01h\x00\x01ps")},
		{name: "short length", data: []byte("\x00"), wantErr: ErrMalformed},
		{name: "empty header", data: []byte("\x00\x00\x00\x01ps"), wantErr: ErrMalformed},
		{name: "header past the end", data: []byte("\x00\x09h"), wantErr: ErrMalformed},
		{name: "no payload length", data: []byte("\x00\x01h\x00"), wantErr: ErrMalformed},
		{name: "payload past the end", data: []byte("\x00\x01h\x00\x05ps"), wantErr: ErrMalformed},
		{name: "no signature", data: []byte("\x00\x01h\x00\x01p"), wantErr: ErrMalformed},
		{name: "too large", data: append([]byte("\x00\x01h\x18\x00"), make([]byte, 6145)...), wantErr: ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Packed
			err := p.UnmarshalBinary(tc.data)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("UnmarshalBinary() error = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			again, err := p.AppendBinary(nil)
			if err != nil || !bytes.Equal(again, tc.data) {
				t.Errorf("AppendBinary() = %q, %v, want %q", again, err, tc.data)
			}
		})
	}
}

// TestVerifyPacked checks that a packed token verifies exactly like its
// string, sharing its cache entry, and that the cache hands out claims
// equal to the verified ones, whichever form filled it.
func TestVerifyPacked(t *testing.T) {
	ks := newTestKeySet(t, 1)
	tok := mustMint(t, ks, rootClaims(t0), rootResources())
	p, err := Pack(tok)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := newTestVerifier(t, ks, t0, 0).Verify(context.Background(), tok, Expected{})
	if err != nil {
		t.Fatal(err)
	}
	for _, packedFirst := range []bool{true, false} {
		clk := newClock(t0)
		v := newCachedVerifier(t, ks, clk, 8)
		// both verifies the two forms, the one that fills the cache first.
		both := func(want Expected) [2]error {
			var errs [2]error
			for i := range 2 {
				var c *Claims
				if packedFirst == (i == 0) {
					c, errs[i] = v.VerifyPacked(context.Background(), p, want)
				} else {
					c, errs[i] = v.Verify(context.Background(), tok, want)
				}
				if errs[i] == nil && !reflect.DeepEqual(c, fresh) {
					t.Fatalf("packed first %v, call %d: claims %+v, want %+v", packedFirst, i, c, fresh)
				}
			}
			return errs
		}
		if errs := both(Expected{Audience: testAudience}); errs != [2]error{} {
			t.Fatalf("packed first %v: %v", packedFirst, errs)
		}
		if n := v.cache.len(); n != 1 {
			t.Errorf("packed first %v: cache len %d, want 1 entry for both forms", packedFirst, n)
		}
		for _, tc := range []struct {
			at      time.Duration
			want    Expected
			wantErr error
		}{
			{want: Expected{Audience: "calendar"}, wantErr: ErrWrongAudience},
			{at: 2 * time.Hour, wantErr: ErrExpired},
		} {
			clk.set(t0.Add(tc.at))
			if errs := both(tc.want); !errors.Is(errs[0], tc.wantErr) || !errors.Is(errs[1], tc.wantErr) {
				t.Errorf("packed first %v: %v, want %v", packedFirst, errs, tc.wantErr)
			}
		}
	}
}

func TestVerifyPackedRefuses(t *testing.T) {
	ks := newTestKeySet(t, 1)
	v := newTestVerifier(t, ks, t0, 8)
	tok := mustMint(t, ks, rootClaims(t0), rootResources())
	forged, err := Pack(malleateS(t, tok))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		p       Packed
		wantErr error
	}{
		{name: "zero", p: Packed{}, wantErr: ErrMalformed},
		{name: "malleated signature", p: forged, wantErr: ErrInvalid},
		{name: "not a token", p: Packed{header: "aGVhZA", payload: "payload", sig: "sig"}, wantErr: ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := v.VerifyPacked(context.Background(), tc.p, Expected{}); !errors.Is(err, tc.wantErr) {
				t.Fatalf("VerifyPacked() error = %v, want %v", err, tc.wantErr)
			}
		})
	}
	if n := v.cache.len(); n != 0 {
		t.Errorf("cache holds %d failures", n)
	}
}

// FuzzPack feeds arbitrary strings to Pack: a packed token re-encodes to
// exactly its string, and its binary form decodes back to it.
func FuzzPack(f *testing.F) {
	f.Add(mustMint(f, newTestKeySet(f, 1), rootClaims(t0), rootResources()))
	f.Add("aGVhZA.cGF5bG9hZA.c2ln")
	f.Add("aGVhZB.cGF5bG9hZA.c2ln")
	f.Add("a..b")
	f.Fuzz(func(t *testing.T, tok string) {
		p, err := Pack(tok)
		if err != nil {
			checkErrorClass(t, err)
			return
		}
		if got := p.String(); got != tok {
			t.Fatalf("Pack(%q).String() = %q", tok, got)
		}
		bin, err := p.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		var back Packed
		if err := back.UnmarshalBinary(bin); err != nil || back != p {
			t.Fatalf("binary round trip: %v", err)
		}
	})
}

// FuzzPackedUnmarshalBinary feeds arbitrary bytes to the strict binary
// decoder: what it accepts encodes back to the very same bytes, and its
// compact string packs back to the same token.
func FuzzPackedUnmarshalBinary(f *testing.F) {
	p, err := Pack(mustMint(f, newTestKeySet(f, 1), rootClaims(t0), rootResources()))
	if err != nil {
		f.Fatal(err)
	}
	bin, err := p.AppendBinary(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(bin)
	f.Add([]byte("\x00\x01h\x00\x01ps"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var p Packed
		if err := p.UnmarshalBinary(data); err != nil {
			checkErrorClass(t, err)
			return
		}
		again, err := p.AppendBinary(nil)
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("AppendBinary() = %x, %v, want %x", again, err, data)
		}
		if p.IsZero() {
			return
		}
		q, err := Pack(p.String())
		if err != nil || q != p {
			t.Fatalf("Pack(String()) = %+v, %v, want %+v", q, err, p)
		}
	})
}

// TestVerifyPackedSharesToken checks that the cache keeps the claims of a
// packed token as spans of the token itself, not as a copy.
func TestVerifyPackedSharesToken(t *testing.T) {
	ks := newTestKeySet(t, 1)
	v := newTestVerifier(t, ks, t0, 8)
	p, err := Pack(mustMint(t, ks, rootClaims(t0), rootResources()))
	if err != nil {
		t.Fatal(err)
	}
	c, err := v.VerifyPacked(context.Background(), p, Expected{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range v.cache.entries {
		if unsafe.StringData(e.claims.src) != unsafe.StringData(p.payload) {
			t.Error("the cache keeps a copy of the packed token's claims")
		}
	}
	if id := p.Share(c.CapabilityID); unsafe.StringData(c.CapabilityID) != unsafe.StringData(id) {
		t.Error("the claims handed out copy the packed token's strings")
	}
}
