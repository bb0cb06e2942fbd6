package enforce_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/enforce"
)

// testScope is a capability on two resources, opened.
func testScope() *enforce.Scope {
	return &enforce.Scope{
		Claims:    &captoken.Claims{CapabilityID: "cap_1", Holder: alice, Handles: []string{"rh_1", "rh_2"}},
		Resources: enforce.ResourceMap{{Handle: "rh_1", ID: "reports/q1"}, {Handle: "rh_2", ID: "reports/q2"}},
	}
}

func TestRewriteArguments(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		want    string
		wantErr error
	}{
		{"one handle", `{"resourceHandle":"rh_1","x":1}`, `{"resourceId":"reports/q1","x":1}`, nil},
		{"listed handles", `{"resourceHandles":["rh_2","rh_1"]}`, `{"resourceIds":["reports/q2","reports/q1"]}`, nil},
		{"no handle: all of the capability's", `{}`, `{"resourceIds":["reports/q1","reports/q2"]}`, nil},
		{"foreign handle", `{"resourceHandle":"rh_9"}`, "", refused(enforce.ResourceNotPermitted)},
		{"one foreign among many", `{"resourceHandles":["rh_1","rh_9"]}`, "", refused(enforce.ResourceNotPermitted)},
		{"empty list", `{"resourceHandles":[]}`, "", refused(enforce.ResourceNotPermitted)},
		{"handle not a string", `{"resourceHandle":7}`, "", refused(enforce.ResourceNotPermitted)},
		{"real id from the caller", `{"resourceId":"reports/q1"}`, "", refused(enforce.ResourceNotPermitted)},
		{"real ids from the caller", `{"resourceIds":["reports/q1"]}`, "", refused(enforce.ResourceNotPermitted)},
		{"case variant", `{"ResourceId":"reports/secret"}`, "", refused(enforce.InvalidParams)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tt.args), &args); err != nil {
				t.Fatal(err)
			}
			out, r := testScope().RewriteArguments(args)
			if err := asErr(r); !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("RewriteArguments: %v, want %v", err, tt.wantErr)
			}
			if errors.Is(asErr(r), refused(enforce.InvalidParams)) && r.Members()["member"] != "params.arguments.ResourceId" {
				t.Errorf("data.member = %v, want params.arguments.ResourceId", r.Members()["member"])
			}
			if tt.wantErr != nil {
				return
			}
			if got, _ := json.Marshal(out); string(got) != tt.want {
				t.Errorf("rewritten = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestIDMapReplace(t *testing.T) {
	s := &enforce.Scope{
		Claims: &captoken.Claims{Handles: []string{"rh_1", "rh_2"}},
		Resources: enforce.ResourceMap{
			{Handle: "rh_2", ID: "notes/team-standup-2"}, {Handle: "rh_1", ID: "notes/team-standup"},
		},
	}
	redact := s.IDMap(enforce.NewCatalog(enforce.Known{IDs: []string{"notes/secret", "notes/team-standup", ""}, Placeholder: "[resource]"}))
	refuse := s.IDMap(enforce.NewCatalog(enforce.Known{IDs: []string{"notes/forbidden"}, Refuse: true}))
	tests := []struct {
		name, in, want string
		m              *enforce.IDMap
		refused        bool
	}{
		{"whole string", "notes/team-standup", "rh_1", redact, false},
		{"in a sentence", "opened notes/team-standup.", "opened rh_1.", redact, false},
		{"longest wins", "notes/team-standup-2 and notes/team-standup", "rh_2 and rh_1", redact, false},
		{"glued to a longer word", "notes/team-standup-old", "rh_1-old", redact, false},
		{"preceded by a path", "x/notes/team-standup", "x/rh_1", redact, false},
		{"a catalog id the capability holds maps to its handle", "notes/team-standup", "rh_1", redact, false},
		{"unmapped redacted", "notes/secret: 42", "[resource]: 42", redact, false},
		{"unmapped refused", "see notes/forbidden", "", refuse, true},
		{"refused inside a longer word", "notes/forbidden2", "", refuse, true},
		{"refused even beside a NUL the upstream sent", "see notes/forbidden\x00", "", refuse, true},
		{"nothing", "hello", "hello", redact, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, refused := tt.m.Replace(tt.in)
			if got != tt.want || refused != tt.refused {
				t.Errorf("Replace(%q) = %q, %v; want %q, %v", tt.in, got, refused, tt.want, tt.refused)
			}
			if in := tt.m.In([]byte(tt.in)); in != (tt.in != tt.want || tt.refused) {
				t.Errorf("In(%q) = %v", tt.in, in)
			}
		})
	}
}

func TestInbound(t *testing.T) {
	s := testScope()
	known := s.IDMap(enforce.NewCatalog(enforce.Known{IDs: []string{"reports/secret"}, Placeholder: "[resource]"}))
	tests := []struct {
		name, in, want string
		wantErr        error
	}{
		{"handles become ids", "compare rh_1 with rh_2", "compare reports/q1 with reports/q2", nil},
		{"no handle", "hello", "hello", nil},
		{"a handle of another capability", "read rh_9", "", refused(enforce.ResourceNotPermitted)},
		{"a real id of the capability", "read reports/q1", "", refused(enforce.ResourceNotPermitted)},
		{"a real id the gateway knows", "read reports/secret", "", refused(enforce.ResourceNotPermitted)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, r := s.Inbound(known, tt.in)
			if err := asErr(r); !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("Inbound(%q): %v, want %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("Inbound(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzIDMap: whatever string an upstream answers with, once mapped it
// holds none of the capability's real ids and no id the map refuses.
func FuzzIDMap(f *testing.F) {
	f.Add("reports/q1 and reports/q2")
	f.Add("reports/q1reports/q2\x00")
	f.Add("reports/secretreports/q1")
	s := testScope()
	m := s.IDMap(enforce.NewCatalog(enforce.Known{IDs: []string{"reports/secret"}, Refuse: true}))
	f.Fuzz(func(t *testing.T, in string) {
		out, refusedAnswer := m.Replace(in)
		if refusedAnswer {
			return
		}
		for _, id := range []string{"reports/q1", "reports/q2", "reports/secret"} {
			if strings.Contains(out, id) {
				t.Fatalf("Replace(%q) = %q still names %s", in, out, id)
			}
		}
	})
}
