package discovery_test

import (
	"context"
	"fmt"
	"time"

	"github.com/capgate/capgate/gateway/discovery"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

func ExampleSnapshot() {
	p, _, err := policy.Load(context.Background(), []byte(`version: 1
rules:
  - id: contractors-read-reports
    principals: {groups: [contractors]}
    agents: [documents]
    grants: [documents:read]
    operations: [retrieve, list]
    resources: {collection: reports}
`), "policy.yaml", policytest.QuickstartCatalog())
	if err != nil {
		fmt.Println(err)
		return
	}
	snap, err := discovery.Snapshot(context.Background(), discovery.Input{
		Agent:     "documents",
		PublicURL: "https://gateway.example/a2a/documents",
		Grants: []policy.Grant{{ID: "documents:read", Operations: []string{"retrieve", "search", "list"},
			Attenuable: true}},
		Skills: map[string]string{"retrieve_document": "retrieve", "search_documents": "search",
			"list_documents": "list"},
		Policy:    p,
		Principal: policy.Principal{ID: "user:bob@example.com", Groups: []string{"contractors"}},
		Now:       time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, tool := range snap.Tools.Items {
		fmt.Println("tool:", tool.Name)
	}
	for _, g := range snap.Custom[discovery.CustomCapabilityGrants].([]discovery.GrantCaps) {
		fmt.Println("grant:", g.ID, g.Operations, g.Resources.Collection, g.MaxTTLSeconds, g.MaxDelegationDepth)
	}
	fmt.Println("delegation:", *snap.MultiAgent.Delegation)
	// Output:
	// tool: list_documents
	// tool: retrieve_document
	// grant: documents:read [retrieve list] reports 900 0
	// delegation: false
}
