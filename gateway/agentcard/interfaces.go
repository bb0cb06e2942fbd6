package agentcard

import (
	"slices"
	"strings"
)

// standardVersions are the A2A versions a served interface may announce
// for an upstream that declares only a min/max range, newest (preferred)
// first.
var standardVersions = []string{"1.0", "0.3"}

// servedInterfaces returns the card's supportedInterfaces as the gateway
// serves them: one per JSON-RPC interface of the upstream, each with url
// pointing at the gateway and the upstream's protocolBinding,
// protocolVersion and tenant. Other bindings are dropped: the gateway
// fronts JSON-RPC only. An upstream that lists no supportedInterfaces (a
// v0.3 card) gets one interface per version it declares, in its range,
// protocolVersion or additionalInterfaces, as Major.Minor.
func servedInterfaces(upstream map[string]any, public string) []any {
	out := []any{}
	if list, ok := upstream["supportedInterfaces"].([]any); ok {
		for _, e := range list {
			m, _ := e.(map[string]any)
			v, _ := m["protocolVersion"].(string)
			if m == nil || !isJSONRPC(m) || v == "" {
				continue
			}
			binding, _ := m["protocolBinding"].(string)
			if binding == "" {
				binding = BindingJSONRPC
			}
			iface := map[string]any{"url": public, "protocolBinding": binding, "protocolVersion": v}
			if tenant, ok := m["tenant"].(string); ok && tenant != "" {
				iface["tenant"] = tenant
			}
			out = append(out, iface)
		}
		return out
	}
	spec, err := cardVersions(upstream)
	if err != nil {
		return out
	}
	var versions []string
	for _, v := range standardVersions {
		if spec.admits(mustVersion(v)) {
			versions = append(versions, v)
		}
	}
	for _, v := range spec.list {
		if mm := majorMinor(v); !slices.Contains(versions, mm) {
			versions = append(versions, mm)
		}
	}
	for _, v := range versions {
		out = append(out, map[string]any{"url": public, "protocolBinding": BindingJSONRPC, "protocolVersion": v})
	}
	return out
}

// majorMinor returns the Major.Minor form of a version, as A2A v1.0 wants
// it in an interface ("0.3.0" → "0.3"; "1" → "1.0").
func majorMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) == 1 {
		return parts[0] + ".0"
	}
	return parts[0] + "." + parts[1]
}

// hasV03Members reports whether the upstream card speaks the v0.3 card
// format (url, preferredTransport or additionalInterfaces), or has no
// supportedInterfaces at all and so can only be read as a v0.3 card.
func hasV03Members(upstream map[string]any) bool {
	for _, k := range []string{"url", "preferredTransport", "additionalInterfaces"} {
		if _, ok := upstream[k]; ok {
			return true
		}
	}
	_, v1 := upstream["supportedInterfaces"]
	return !v1
}
