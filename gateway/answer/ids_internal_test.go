package answer

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/capgate/capgate/gateway/enforce"
)

// TestMapIDsOnePass: the answer is searched once from left to right, and
// each literal an id starts in is mapped, whatever came before it.
func TestMapIDsOnePass(t *testing.T) {
	c := enforce.NewCatalog(enforce.Known{IDs: []string{"reports/q1", "reports/q2", "reports/x", `x"`}, Placeholder: "[resource]"})
	refuse := enforce.NewCatalog(enforce.Known{IDs: []string{"reports/x"}, Refuse: true})
	tests := []struct {
		name, in, want string
		c              *enforce.Catalog
		wantErr        error
	}{
		{"none", `{"a":"b","c":[1,"d"]}`, `{"a":"b","c":[1,"d"]}`, c, nil},
		{"second and fourth literals", `["a","reports/q1","b","x reports/x y"]`, `["a","rh_1","b","x [resource] y"]`, c, nil},
		{"key and value", `{"reports/q2":"reports/q1"}`, `{"rh_2":"rh_1"}`, c, nil},
		{"an id across a closing quote is no id", `["reports/x","x","reports/q2"]`, `["[resource]","x","rh_2"]`, c, nil},
		{"escaped after plain", `["reports/q1","reports\/q2"]`, `["rh_1","rh_2"]`, c, nil},
		{"escaped only", `["reports\/q2"]`, `["rh_2"]`, c, nil},
		{"refused late", `["a","b","reports/q1 reports/x"]`, "", refuse, ErrUnmappedID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MapIDs(json.RawMessage(tt.in), benchScope(), tt.c)
			if !errors.Is(err, tt.wantErr) || err == nil && string(got) != tt.want {
				t.Errorf("MapIDs(%s) = %s, %v; want %s, %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}
