package captoken

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Packed is a capability token held in binary: the header segment as it
// appears in the token, and the payload and signature base64url-decoded,
// together about three quarters of the compact string. It re-encodes to
// exactly the string it was packed from, byte for byte (String), because
// packing accepts only the strict base64url form of each segment. The
// payload and the signature are two strings, so that a payload of up to
// 768 bytes fits the allocator's 768-byte class rather than sharing a
// larger one with the signature.
//
// Packing checks the form only. A Packed is no more trusted than the
// string it came from: VerifyPacked verifies it exactly like Verify
// verifies that string. The zero Packed holds no token; String returns ""
// for it and VerifyPacked refuses it.
type Packed struct {
	header  string // the header segment, base64url as in the token
	payload string // the payload, decoded
	sig     string // the signature, decoded
}

// strictB64 is the only base64 a token segment may use: unpadded
// base64url whose unused trailing bits are zero, so that each segment has
// exactly one spelling and packing is undone by String. It is a constant
// in all but name: nothing changes it.
var strictB64 = base64.RawURLEncoding.Strict()

// Pack decodes a compact token into its binary form. Errors: ErrTooLarge
// past MaxTokenSize; ErrMalformed for anything but three segments of
// strict base64url with a non-empty header and signature.
func Pack(token string) (Packed, error) {
	if len(token) > MaxTokenSize {
		return Packed{}, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(token), MaxTokenSize)
	}
	hseg, pseg, sseg, err := splitCompact(token)
	if err != nil {
		return Packed{}, err
	}
	if hseg == "" || sseg == "" {
		return Packed{}, fmt.Errorf("%w: empty header or signature", ErrMalformed)
	}
	if _, err := strictB64.DecodeString(hseg); err != nil {
		return Packed{}, fmt.Errorf("%w: header encoding: %w", ErrMalformed, err)
	}
	payload, err := strictB64.DecodeString(pseg)
	if err != nil {
		return Packed{}, fmt.Errorf("%w: payload encoding: %w", ErrMalformed, err)
	}
	sig, err := strictB64.DecodeString(sseg)
	if err != nil {
		return Packed{}, fmt.Errorf("%w: signature encoding: %w", ErrMalformed, err)
	}
	return Packed{header: strings.Clone(hseg), payload: string(payload), sig: string(sig)}, nil
}

// IsZero reports whether p holds no token.
func (p Packed) IsZero() bool { return p.header == "" }

// String returns the compact token p was packed from.
func (p Packed) String() string {
	if p.IsZero() {
		return ""
	}
	return string(p.AppendCompact(make([]byte, 0, p.compactLen())))
}

// AppendCompact appends the compact token to dst; nothing for the zero
// Packed.
func (p Packed) AppendCompact(dst []byte) []byte {
	if p.IsZero() {
		return dst
	}
	dst = appendB64(append(append(dst, p.header...), '.'), p.payload)
	return appendB64(append(dst, '.'), p.sig)
}

// compactLen is the length of the compact token.
func (p Packed) compactLen() int {
	enc := base64.RawURLEncoding
	return len(p.header) + 2 + enc.EncodedLen(len(p.payload)) + enc.EncodedLen(len(p.sig))
}

// Header returns the header segment, as in the token. Tokens signed with
// one key share it, so a store of many tokens may keep one copy of each
// header and pass it to WithHeader.
func (p Packed) Header() string { return p.header }

// WithHeader returns p holding h as its header segment when h spells the
// same segment, and p unchanged otherwise: it shares memory, never changes
// the token.
func (p Packed) WithHeader(h string) Packed {
	if h == p.header {
		p.header = h
	}
	return p
}

// Share returns a string equal to s that shares p's bytes when p's
// payload holds s as written (a claim that JSON does not escape), and s
// otherwise: a store that keeps p keeps such a string for free.
func (p Packed) Share(s string) string {
	if i := strings.Index(p.payload, s); i >= 0 && s != "" {
		return p.payload[i : i+len(s)]
	}
	return s
}

// b64Chunk is how many bytes appendB64 encodes at a time: a multiple of 3,
// so that the chunks' encodings join into the encoding of the whole.
const b64Chunk = 192

// appendB64 appends the unpadded base64url encoding of s to dst, without
// copying s to the heap.
func appendB64(dst []byte, s string) []byte {
	var chunk [b64Chunk]byte
	for len(s) > 0 {
		n := copy(chunk[:], s)
		dst = base64.RawURLEncoding.AppendEncode(dst, chunk[:n])
		s = s[n:]
	}
	return dst
}

// AppendBinary appends p's binary form to dst: the decoded header and the
// payload, each after its length as two big-endian bytes, then the
// signature. The zero Packed appends nothing.
func (p Packed) AppendBinary(dst []byte) ([]byte, error) {
	if p.IsZero() {
		return dst, nil
	}
	header, err := strictB64.DecodeString(p.header)
	if err != nil || len(header) > math.MaxUint16 || len(p.payload) > math.MaxUint16 {
		return dst, fmt.Errorf("%w: cannot encode", ErrMalformed)
	}
	dst = append(binary.BigEndian.AppendUint16(dst, uint16(len(header))), header...)
	dst = append(binary.BigEndian.AppendUint16(dst, uint16(len(p.payload))), p.payload...)
	return append(dst, p.sig...), nil
}

// UnmarshalBinary decodes the binary form AppendBinary produces, strictly:
// empty data is the zero Packed; otherwise the header and the signature
// must not be empty, the lengths must hold and the compact token must not
// exceed MaxTokenSize. Errors match ErrMalformed or ErrTooLarge.
func (p *Packed) UnmarshalBinary(data []byte) error {
	if len(data) == 0 {
		*p = Packed{}
		return nil
	}
	header, rest, ok := cutField(data)
	if !ok || len(header) == 0 {
		return fmt.Errorf("%w: binary header", ErrMalformed)
	}
	payload, sig, ok := cutField(rest)
	if !ok || len(sig) == 0 {
		return fmt.Errorf("%w: binary payload or signature", ErrMalformed)
	}
	enc := base64.RawURLEncoding
	if n := enc.EncodedLen(len(header)) + 2 + enc.EncodedLen(len(payload)) + enc.EncodedLen(len(sig)); n > MaxTokenSize {
		return fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, n, MaxTokenSize)
	}
	*p = Packed{header: enc.EncodeToString(header), payload: string(payload), sig: string(sig)}
	return nil
}

// cutField splits data after a field prefixed by its length in two
// big-endian bytes.
func cutField(data []byte) (field, rest []byte, ok bool) {
	if len(data) < 2 {
		return nil, nil, false
	}
	n := int(binary.BigEndian.Uint16(data))
	if len(data)-2 < n {
		return nil, nil, false
	}
	return data[2 : 2+n], data[2+n:], true
}
