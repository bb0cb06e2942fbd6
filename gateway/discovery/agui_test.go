package discovery_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/capgate/capgate/gateway/discovery"
)

// fill sets every field reachable from v to a non-zero value.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i))
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		v.SetMapIndex(reflect.ValueOf("key"), reflect.ValueOf("value"))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int64:
		v.SetInt(1)
	case reflect.String:
		v.SetString("s")
	case reflect.Interface:
		v.Set(reflect.ValueOf(map[string]any{"type": "object"}))
	}
}

// TestAgentCapabilitiesShape pins every JSON member name of the AG-UI
// types (as the @ag-ui/core 1.0 type definitions name them, for example
// multiAgent.subagents) and that the zero value marshals to an empty
// object: absent means unknown.
func TestAgentCapabilitiesShape(t *testing.T) {
	var full discovery.AgentCapabilities
	fill(reflect.ValueOf(&full).Elem())
	data, err := json.MarshalIndent(full, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "agui_shape.golden", append(data, '\n'))
	if data, _ := json.Marshal(discovery.AgentCapabilities{}); string(data) != "{}" {
		t.Errorf("zero snapshot = %s, want {}", data)
	}
}
