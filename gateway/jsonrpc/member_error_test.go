package jsonrpc_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// memberParams has a member of every kind the gateway's params use.
type memberParams struct {
	Grants   []string                   `json:"grants"`
	Query    *memberQuery               `json:"resourceQuery,omitempty"`
	Expires  *time.Time                 `json:"expires,omitempty"`
	Depth    int                        `json:"maxDepth,omitempty"`
	Count    uint8                      `json:"count,omitempty"`
	Ratio    float64                    `json:"ratio,omitempty"`
	Flag     bool                       `json:"flag,omitempty"`
	Number   json.Number                `json:"number,omitempty"`
	Args     map[string]json.RawMessage `json:"arguments,omitempty"`
	Anything any                        `json:"anything,omitempty"`
	Nested   [][]string                 `json:"nested,omitempty"`
}

type memberQuery struct {
	Collection string            `json:"collection"`
	Filter     map[string]string `json:"filter,omitempty"`
}

// leaks are what encoding/json's own errors say, which no caller should
// read: Go's types and struct fields.
var leaks = []string{"Go struct", "Go value", "json:", "memberParams", "memberQuery", "[]string", "map[", "int", "uint8", "float64", "time.Time"}

// TestMemberErrorNamesThePath: every refusal of a member names its path
// from the request in data.member and says what is wrong in JSON's
// words, never in Go's.
func TestMemberErrorNamesThePath(t *testing.T) {
	tests := []struct {
		params, member, problem string
	}{
		{`{"purpos":"x"}`, "params.purpos", "unknown member"},
		{`{"Grants":["x"]}`, "params.Grants", `must be spelled "grants"`},
		{`{"resourceQuery":{"colection":"x"}}`, "params.resourceQuery.colection", "unknown member"},
		{`{"grants":[1]}`, "params.grants[0]", "must be a string, not a number"},
		{`{"grants":["a",{}]}`, "params.grants[1]", "must be a string, not an object"},
		{`{"grants":"a"}`, "params.grants", "must be an array, not a string"},
		{`{"resourceQuery":[]}`, "params.resourceQuery", "must be an object, not an array"},
		{`{"resourceQuery":{"filter":{"team":1}}}`, "params.resourceQuery.filter.team", "must be a string, not a number"},
		{`{"resourceQuery":{"filter":{"a.b":true}}}`, `params.resourceQuery.filter["a.b"]`, "must be a string, not a boolean"},
		{`{"expires":5}`, "params.expires", "must be a time in RFC 3339 format, as a string"},
		{`{"expires":"tomorrow"}`, "params.expires", "must be a time in RFC 3339 format, as a string"},
		{`{"maxDepth":"2"}`, "params.maxDepth", "must be a number, not a string"},
		{`{"maxDepth":1.5}`, "params.maxDepth", "must be a whole number in range"},
		{`{"count":256}`, "params.count", "must be a whole number, not negative, in range"},
		{`{"ratio":"x"}`, "params.ratio", "must be a number, not a string"},
		{`{"flag":"yes"}`, "params.flag", "must be a boolean, not a string"},
		{`{"number":true}`, "params.number", "must be a number, not a boolean"},
		{`{"arguments":[]}`, "params.arguments", "must be an object, not an array"},
		{`{"nested":[["a"],["b",2]]}`, "params.nested[1][1]", "must be a string, not a number"},
		{`["grants"]`, "params", "must be an object, not an array"},
		{`"x"`, "params", "must be an object or an array"},
	}
	for _, tt := range tests {
		t.Run(tt.params, func(t *testing.T) {
			var p memberParams
			err := jsonrpc.UnmarshalParams(json.RawMessage(tt.params), &p)
			if !errors.Is(err, jsonrpc.ErrInvalidParams) {
				t.Fatalf("err = %v, want ErrInvalidParams", err)
			}
			me, ok := errors.AsType[*jsonrpc.MemberError](err)
			if !ok || me.Member != tt.member || me.Problem != tt.problem {
				t.Fatalf("err = %v, want %s: %s", err, tt.member, tt.problem)
			}
			wire, _ := json.Marshal(jsonrpc.ErrorFor(err))
			var back struct {
				Code int
				Data map[string]any
			}
			if json.Unmarshal(wire, &back) != nil || back.Code != jsonrpc.CodeInvalidParams || back.Data["member"] != tt.member {
				t.Errorf("on the wire %s, want -32602 with data.member %q", wire, tt.member)
			}
			for _, leak := range leaks {
				if strings.Contains(string(wire), leak) {
					t.Errorf("on the wire %s: says %q", wire, leak)
				}
			}
		})
	}
}

// TestMemberErrorAcceptsWhatDecodes: the values the wording walk is
// shown are ones encoding/json decodes, so it never refuses them.
func TestMemberErrorAcceptsWhatDecodes(t *testing.T) {
	ok := `{"grants":["a"],"resourceQuery":{"collection":"c","filter":{"k":"v"}},"expires":"2030-01-02T03:04:05Z",` +
		`"maxDepth":-3,"count":255,"ratio":1e3,"flag":false,"number":"12","arguments":{"x":[1]},"anything":{"a":[null]},"nested":[[],null]}`
	var p memberParams
	if err := jsonrpc.UnmarshalParams(json.RawMessage(ok), &p); err != nil {
		t.Fatal(err)
	}
}
