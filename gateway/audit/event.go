package audit

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// event is what the verifier needs of one parsed line.
type event struct {
	chain    string
	seq      uint64
	prev     string
	hash     string // the hash the line carries
	computed string // the hash of its canonical encoding
	name     string // the event field
	jws      string // a checkpoint's signature
	cpErr    error  // why a checkpoint's members are malformed
}

// parseEvent parses a line strictly and checks the reserved fields'
// shapes. The returned event carries chain and seq as far as they could
// be read, even with an error.
func parseEvent(line []byte) (event, error) {
	var ev event
	obj, err := parseObject(line)
	if err != nil {
		return ev, err
	}
	if obj, err = unwrapOCSF(obj); err != nil {
		return ev, err
	}
	ev.chain, _ = obj[FieldChain].(string)
	ev.name, _ = obj[FieldEvent].(string)
	if ev.name == CheckpointEvent {
		ev.jws, ev.cpErr = checkpointJWS(obj)
	}
	if n, ok := obj[FieldSeq].(json.Number); ok {
		ev.seq, _ = strconv.ParseUint(string(n), 10, 64)
	}
	if err := checkReserved(obj, &ev); err != nil {
		return ev, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	ms, err := encodeMembers(obj)
	if err != nil {
		return ev, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	ev.computed = chainHash(ms)
	return ev, nil
}

// checkReserved checks every reserved field's presence and shape.
func checkReserved(obj map[string]any, ev *event) error {
	str := func(k string) (string, error) {
		s, ok := obj[k].(string)
		if !ok {
			return "", fmt.Errorf("%s is missing or not a string", k)
		}
		return s, nil
	}
	if _, err := str(FieldEvent); err != nil {
		return err
	}
	ts, err := str(FieldTime)
	if err != nil {
		return err
	}
	if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
		return fmt.Errorf("time %q is not RFC 3339", ts)
	}
	if ev.chain == "" {
		return fmt.Errorf("chain is missing, empty or not a string")
	}
	if ev.seq == 0 {
		return fmt.Errorf("seq is missing or not a positive integer")
	}
	if ev.prev, err = str(FieldPrev); err != nil {
		return err
	}
	if ev.hash, err = str(FieldHash); err != nil {
		return err
	}
	if !isHash(ev.hash) {
		return fmt.Errorf("hash is not 64 lowercase hex digits")
	}
	if ev.seq == 1 && ev.prev != "" || ev.seq != 1 && !isHash(ev.prev) {
		return fmt.Errorf("prev must be empty at seq 1 and 64 lowercase hex digits after")
	}
	return nil
}

// isHash reports whether s is a lowercase hex SHA-256.
func isHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
