package jsonrpc

import (
	"encoding/json"
	"errors"
	"testing"
)

type invokeArgs struct {
	ResourceHandle string `json:"resourceHandle"`
	Format         string `json:"format,omitempty"`
}

type invokeParams struct {
	Skill        string          `json:"skill"`
	CapabilityID string          `json:"capabilityId"`
	Arguments    invokeArgs      `json:"arguments"`
	Handles      []invokeArgs    `json:"handles,omitempty"`
	ByName       map[string]*Hop `json:"byName,omitempty"`
	Extra        json.RawMessage `json:"extra,omitempty"`
	Anything     any             `json:"anything,omitempty"`
	Embedded
	ignored string // unexported: never decoded into
}

// Embedded checks that promoted fields are matched exactly too.
type Embedded struct {
	Purpose string `json:"purpose,omitempty"`
}

// Hop is a map value type with its own named fields.
type Hop struct {
	Agent string `json:"agent"`
}

// paramsCase is one params text and the error decoding it must give.
type paramsCase struct {
	name    string
	raw     string
	wantErr error
}

// paramsCases are the strictness cases every way of decoding params must
// agree on.
func paramsCases() []paramsCase {
	return []paramsCase{
		{"valid", `{"skill":"s","capabilityId":"c","arguments":{"resourceHandle":"rh_001"}}`, nil},
		{"escaped names", `{"sk\u0069ll":"s","capabilityId":"c"}`, nil},
		{"promoted field", `{"skill":"s","purpose":"p"}`, nil},
		{"nested slice and map", `{"handles":[{"resourceHandle":"a"}],"byName":{"x":{"agent":"b"}}}`, nil},
		{"case variants inside a raw message still fail", `{"extra":{"Anything":1,"anything":2}}`, ErrDuplicateKey},
		{"raw message holds any names", `{"extra":{"Whatever":1}}`, nil},
		{"interface holds any names", `{"anything":{"Whatever":[{"X":1}]}}`, nil},
		{"absent", ``, ErrInvalidParams},
		{"whitespace only", "  ", ErrInvalidParams},
		{"null", `null`, ErrInvalidParams},
		{"string", `"x"`, ErrInvalidParams},
		{"array into struct", `[1,2]`, ErrInvalidParams},
		{"unknown member", `{"skill":"s","admin":true}`, ErrInvalidParams},
		{"unknown nested member", `{"arguments":{"resourceHandle":"a","collection":"hr"}}`, ErrInvalidParams},
		{"case mismatch top level", `{"CapabilityID":"c"}`, ErrInvalidParams},
		{"case mismatch nested", `{"arguments":{"ResourceHandle":"rh_002"}}`, ErrInvalidParams},
		{"case mismatch in slice", `{"handles":[{"resourcehandle":"a"}]}`, ErrInvalidParams},
		{"case mismatch in map value", `{"byName":{"x":{"Agent":"b"}}}`, ErrInvalidParams},
		{"case mismatch promoted", `{"PURPOSE":"p"}`, ErrInvalidParams},
		{"kelvin sign spelling", `{"\u212aind":"x","skill":"s"}`, ErrInvalidParams},
		{"long s spelling", `{"\u017fkill":"s"}`, ErrInvalidParams},
		{"unexported field name", `{"ignored":"x"}`, ErrInvalidParams},
		{"wrong type", `{"skill":1}`, ErrInvalidParams},
		{"duplicate", `{"skill":"a","skill":"b"}`, ErrDuplicateKey},
		{"case variant", `{"skill":"a","Skill":"b"}`, ErrCaseVariantKey},
		{"trailing data", `{"skill":"a"} {}`, ErrParse},
		{"invalid UTF-8", "{\"skill\":\"\xff\"}", ErrInvalidUTF8},
	}
}

func TestUnmarshalParams(t *testing.T) {
	for _, tt := range paramsCases() {
		t.Run(tt.name, func(t *testing.T) {
			var p invokeParams
			err := UnmarshalParams(json.RawMessage(tt.raw), &p)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("UnmarshalParams() error = %v, want %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrInvalidParams) {
				t.Fatalf("UnmarshalParams() error = %v, does not wrap %v", err, ErrInvalidParams)
			}
		})
	}
}

func TestUnmarshalParamsValues(t *testing.T) {
	var p invokeParams
	raw := `{"skill":"retrieve_document","capabilityId":"cap_1","arguments":{"resourceHandle":"rh_001"},` +
		`"purpose":"p","anything":12345678901234567890}`
	if err := UnmarshalParams(json.RawMessage(raw), &p); err != nil {
		t.Fatal(err)
	}
	if p.Skill != "retrieve_document" || p.CapabilityID != "cap_1" || p.Arguments.ResourceHandle != "rh_001" || p.Purpose != "p" {
		t.Errorf("decoded %+v", p)
	}
	if n, ok := p.Anything.(json.Number); !ok || n.String() != "12345678901234567890" {
		t.Errorf("anything = %#v, want the exact json.Number", p.Anything)
	}
}

func TestUnmarshalParamsTarget(t *testing.T) {
	var p invokeParams
	for _, v := range []any{nil, p, (*invokeParams)(nil)} {
		if err := UnmarshalParams(json.RawMessage(`{}`), v); !errors.Is(err, ErrInvalidTarget) {
			t.Errorf("UnmarshalParams(%T) error = %v, want %v", v, err, ErrInvalidTarget)
		}
	}
	var m map[string]any
	if err := UnmarshalParams(json.RawMessage(`{"A":1,"b":2}`), &m); err != nil || len(m) != 2 {
		t.Errorf("UnmarshalParams(map) = %v, %v", m, err)
	}
	var list []invokeArgs
	if err := UnmarshalParams(json.RawMessage(`[{"resourceHandle":"a"},{"ResourceHandle":"b"}]`), &list); !errors.Is(err, ErrInvalidParams) {
		t.Errorf("UnmarshalParams(slice) error = %v, want %v", err, ErrInvalidParams)
	}
}
