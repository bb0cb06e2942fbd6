package documents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// decodeStrict decodes the JSON object raw into v, first refusing what
// encoding/json would silently accept: a member name given twice, two
// names that differ only in case, and a case variant of a known field
// ("ResourceID" for "resourceId"). encoding/json matches names without
// regard to case and lets the last duplicate win, so a caller could
// otherwise smuggle a second value past a gateway that checked the first.
// sentinel is the error class to wrap (ErrInvalidParams or
// ErrInvalidRequest).
func decodeStrict(raw []byte, v any, sentinel error, fields ...string) error {
	keys, err := objectKeys(raw)
	if err != nil {
		return fmt.Errorf("%w: %w", sentinel, err)
	}
	if err := checkKeys(keys, fields); err != nil {
		return fmt.Errorf("%w: %w", sentinel, err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%w: %w", sentinel, err)
	}
	return nil
}

// objectKeys returns the member names of the JSON object raw, in order.
func objectKeys(raw []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want a JSON object")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		keys = append(keys, key)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// checkKeys refuses duplicate and case-variant member names.
func checkKeys(keys, fields []string) error {
	seen := make(map[string]string, len(keys))
	for _, k := range keys {
		// The fold encoding/json uses to match names (ſ matches s, K matches k).
		folded := strings.ToUpper(strings.ToLower(k))
		for _, f := range fields {
			if k != f && strings.EqualFold(k, f) {
				return fmt.Errorf("member %s is a case variant of %q", quote(k), f)
			}
		}
		if prev, dup := seen[folded]; dup {
			return fmt.Errorf("member %s duplicates %s", quote(k), quote(prev))
		}
		seen[folded] = k
	}
	return nil
}
