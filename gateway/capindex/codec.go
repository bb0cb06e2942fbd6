package capindex

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/capgate/capgate/captoken"
)

// ErrInvalidRecord is returned by Put for a record that no index keeps:
// no capability id, or a text field that is not UTF-8 or longer than
// 65,535 bytes. The Redis decoder refuses the same records.
var ErrInvalidRecord = errors.New("capindex: invalid record")

// check reports whether an index may keep r.
func (r Record) check() error {
	if r.CapabilityID == "" {
		return fmt.Errorf("%w: no capability id", ErrInvalidRecord)
	}
	if len(r.DisplayNames) > math.MaxUint16 {
		return fmt.Errorf("%w: too many display names", ErrInvalidRecord)
	}
	for _, s := range append([]string{r.CapabilityID, r.Principal, r.Holder, r.Agent, r.Grant, r.ParentID}, r.DisplayNames...) {
		if !utf8.ValidString(s) || len(s) > math.MaxUint16 {
			return fmt.Errorf("%w: a field is not UTF-8 or too long", ErrInvalidRecord)
		}
	}
	return nil
}

// recordFormat is the first byte of a record's binary form. A record
// written before it (JSON) starts with '{'.
const recordFormat = 1

// encodeRecord is the value of r's Redis key: recordFormat, then the
// capability id, principal, holder, agent, grant, parent id and the
// token's binary form, each after its length in two big-endian bytes;
// the number of display names in two bytes and each name like the
// fields; then the issue and expiry times in Unix milliseconds, eight
// big-endian bytes each.
func encodeRecord(r Record) ([]byte, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	tok, err := r.Token.AppendBinary(nil)
	if err != nil || len(tok) > math.MaxUint16 {
		return nil, fmt.Errorf("%w: a token that has no binary form of up to 65,535 bytes", ErrInvalidRecord)
	}
	b := []byte{recordFormat}
	for _, s := range []string{r.CapabilityID, r.Principal, r.Holder, r.Agent, r.Grant, r.ParentID, string(tok)} {
		b = appendField(b, s)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(r.DisplayNames)))
	for _, name := range r.DisplayNames {
		b = appendField(b, name)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(r.IssuedAt.UnixMilli()))
	return binary.BigEndian.AppendUint64(b, uint64(r.Expires.UnixMilli())), nil
}

func appendField(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint16(b, uint16(len(s))), s...)
}

// errGarbled is decodeRecord's error: the value is no record.
var errGarbled = errors.New("capindex: garbled record")

// decodeRecord decodes a Redis value strictly: the binary form exactly as
// encodeRecord writes it (nothing more, nothing less, and only a record
// check accepts), or a record of the JSON form written before it, read
// as it was then. Anything else is errGarbled.
func decodeRecord(b []byte) (Record, error) {
	if len(b) > 0 && b[0] == '{' {
		return decodeJSONRecord(b)
	}
	if len(b) == 0 || b[0] != recordFormat {
		return Record{}, errGarbled
	}
	d := decoder{b: b[1:], ok: true}
	var r Record
	for _, s := range []*string{&r.CapabilityID, &r.Principal, &r.Holder, &r.Agent, &r.Grant, &r.ParentID} {
		*s = d.field()
	}
	tok := d.take(d.uint16())
	if n := d.uint16(); n > 0 {
		r.DisplayNames = make([]string, 0, min(n, len(d.b)/2))
		for i := 0; i < n && d.ok; i++ {
			r.DisplayNames = append(r.DisplayNames, d.field())
		}
	}
	r.IssuedAt, r.Expires = d.millis(), d.millis()
	if !d.ok || len(d.b) != 0 || r.Token.UnmarshalBinary(tok) != nil || r.check() != nil {
		return Record{}, errGarbled
	}
	return r, nil
}

// decoder reads the binary form; ok turns false, for good, at the first
// read past the end.
type decoder struct {
	b  []byte
	ok bool
}

func (d *decoder) take(n int) []byte {
	if !d.ok || len(d.b) < n {
		d.ok = false
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) uint16() int {
	if b := d.take(2); b != nil {
		return int(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (d *decoder) field() string { return string(d.take(d.uint16())) }

func (d *decoder) millis() time.Time {
	if b := d.take(8); b != nil {
		return time.UnixMilli(int64(binary.BigEndian.Uint64(b))).UTC()
	}
	return time.Time{}
}

// jsonRecord is the JSON form records had before the binary one.
type jsonRecord struct {
	CapabilityID string            `json:"id"`
	Token        string            `json:"token"`
	Principal    string            `json:"principal"`
	Holder       string            `json:"holder"`
	Agent        string            `json:"agent"`
	Grant        string            `json:"grant"`
	ParentID     string            `json:"parentId,omitempty"`
	DisplayNames map[string]string `json:"displayNames,omitempty"`
	IssuedAt     time.Time         `json:"issuedAt"`
	Expires      time.Time         `json:"expires"`
}

// decodeJSONRecord reads a record of the JSON form. A token that does not
// pack is read as no token, which no verifier accepts: the capability is
// as invalid as the string was. The display names, a map by handle in
// that form, are listed in the order of the token's handles.
func decodeJSONRecord(b []byte) (Record, error) {
	var j jsonRecord
	if err := json.Unmarshal(b, &j); err != nil {
		return Record{}, errGarbled
	}
	tok, _ := captoken.Pack(j.Token)
	r := Record{
		CapabilityID: j.CapabilityID, Token: tok, Principal: j.Principal, Holder: j.Holder, Agent: j.Agent,
		Grant: j.Grant, ParentID: j.ParentID, IssuedAt: j.IssuedAt, Expires: j.Expires,
	}
	if c, _, err := captoken.UnsafeClaimsWithoutVerification(j.Token); err == nil && len(j.DisplayNames) > 0 {
		for _, h := range c.Handles {
			r.DisplayNames = append(r.DisplayNames, j.DisplayNames[h])
		}
	}
	if r.check() != nil {
		return Record{}, errGarbled
	}
	return r, nil
}
