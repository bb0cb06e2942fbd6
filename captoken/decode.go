package captoken

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// TokenType is the "typ" header of every capability token.
const TokenType = "cap+jwt"

// MaxTokenSize is the largest token, in bytes, that Verify will parse and
// Mint will produce.
const MaxTokenSize = 8 << 10

// Header is the protected JOSE header of a capability token.
type Header struct {
	// Algorithm is the "alg" parameter.
	Algorithm string
	// KeyID is the "kid" parameter.
	KeyID string
	// Type is the "typ" parameter.
	Type string
	// Raw holds every parameter exactly as it appeared, including any that
	// Verify refuses (jwk, jku, x5u, crit...). For display only.
	Raw map[string]json.RawMessage
}

// splitCompact splits a compact JWS into its three segments. Only the
// base64url alphabet and the two dots are allowed: base64 decoders skip
// CR and LF, and a token is an opaque word in a header, never text.
func splitCompact(token string) (header, payload, sig string, err error) {
	for i := 0; i < len(token); i++ {
		if c := token[i]; !isBase64URL(c) && c != '.' {
			return "", "", "", fmt.Errorf("%w: byte %d is not base64url", ErrMalformed, i)
		}
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", "", "", fmt.Errorf("%w: want 3 segments, got %d", ErrMalformed, len(parts))
	}
	return parts[0], parts[1], parts[2], nil
}

func isBase64URL(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// parseHeader decodes a header segment. With strict set it enforces what
// Verify accepts: only alg, kid and typ, each a string, no duplicates.
func parseHeader(seg string, strict bool) (*Header, error) {
	raw, err := base64.RawURLEncoding.Strict().DecodeString(seg)
	if err != nil {
		return nil, fmt.Errorf("%w: header encoding: %w", ErrMalformed, err)
	}
	allowed := func(string) bool { return true }
	if strict {
		allowed = func(k string) bool { return k == "alg" || k == "kid" || k == "typ" }
	}
	params, err := decodeObject(raw, allowed)
	if err != nil {
		if errors.Is(err, errUnknownKey) {
			return nil, fmt.Errorf("%w: %w", ErrForbiddenHeader, err)
		}
		return nil, fmt.Errorf("%w: header: %w", ErrMalformed, err)
	}
	h := &Header{Raw: params}
	for name, dst := range map[string]*string{"alg": &h.Algorithm, "kid": &h.KeyID, "typ": &h.Type} {
		v, ok := params[name]
		if !ok {
			continue
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return nil, fmt.Errorf("%w: header %q is not a string", ErrMalformed, name)
		}
	}
	return h, nil
}

// errUnknownKey marks a key refused by decodeObject's allow-list.
var errUnknownKey = errors.New("unknown key")

// decodeObject decodes one JSON object into its raw members, refusing
// duplicate keys (compared case-insensitively, since encoding/json matches
// struct fields case-insensitively), keys that allowed rejects, and any
// data after the object.
func decodeObject(data []byte, allowed func(string) bool) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	out := map[string]json.RawMessage{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		fold := strings.ToLower(key)
		if seen[fold] {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		seen[fold] = true
		if !allowed(key) {
			return nil, fmt.Errorf("%w %q", errUnknownKey, key)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return out, nil
}

// decodeClaims decodes a verified payload into Claims, refusing unknown
// members and wrong types. Verify then validates the claims and calls
// checkCanonical.
func decodeClaims(payload []byte) (*Claims, error) {
	var c Claims
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: claims: %w", ErrMalformed, err)
	}
	return &c, nil
}

// checkCanonical requires the payload to be exactly the canonical encoding
// that Mint produces (json.Marshal of the decoded Claims), byte for byte.
// That refuses duplicate or case-variant keys, unknown members, non-integer
// dates, whitespace, reordering and any other alternative spelling of a
// claims set, whatever its signature.
func checkCanonical(c *Claims, payload []byte) error {
	canonical, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("%w: claims: %w", ErrMalformed, err)
	}
	if !bytes.Equal(canonical, payload) {
		return fmt.Errorf("%w: claims are not in canonical form", ErrMalformed)
	}
	return nil
}

// UnsafeClaimsWithoutVerification decodes a token's header and claims
// WITHOUT checking its signature, key, type, issuer, audience or times.
// Nothing it returns may be trusted or used to authorise anything: it
// exists for "capgate token inspect" and for logging. Decoding is lenient
// (unknown header parameters and claims are tolerated) so that suspicious
// tokens can still be looked at.
func UnsafeClaimsWithoutVerification(token string) (*Claims, *Header, error) {
	if len(token) > MaxTokenSize {
		return nil, nil, ErrTooLarge
	}
	hseg, pseg, _, err := splitCompact(token)
	if err != nil {
		return nil, nil, err
	}
	h, err := parseHeader(hseg, false)
	if err != nil {
		return nil, nil, err
	}
	payload, err := base64.RawURLEncoding.DecodeString(pseg)
	if err != nil {
		return nil, h, fmt.Errorf("%w: payload encoding: %w", ErrMalformed, err)
	}
	var c Claims
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, h, fmt.Errorf("%w: claims: %w", ErrMalformed, err)
	}
	return &c, h, nil
}
