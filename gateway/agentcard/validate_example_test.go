package agentcard_test

import (
	"errors"
	"fmt"

	"github.com/capgate/capgate/gateway/agentcard"
)

// Before delegating a streaming task, check that the delegatee's card can
// serve it.
func ExampleValidate() {
	card := map[string]any{
		"name":                 "summarizer",
		"min_protocol_version": "0.3",
		"max_protocol_version": "1.0",
		"capabilities": map[string]any{
			"streaming":  false,
			"extensions": []any{map[string]any{"uri": agentcard.ExtensionURI}},
		},
	}
	need := agentcard.Requirements{
		ProtocolVersion: "0.3",
		Capabilities:    agentcard.RequirementsFor("message/stream", true),
	}
	err := agentcard.Validate(card, need)
	var missing *agentcard.MissingCapabilityError
	if errors.As(err, &missing) {
		fmt.Println(agentcard.Reason(err), missing.Missing)
	}

	need.ProtocolVersion = "1.1"
	err = agentcard.Validate(card, need)
	var mm *agentcard.VersionMismatchError
	if errors.As(err, &mm) {
		fmt.Println(agentcard.Reason(err), mm.Wanted, mm.Min, mm.Max)
	}
	// Output:
	// missing_capability [streaming]
	// version_mismatch 1.1 0.3 1.0
}

func ExampleRequirementsFor() {
	fmt.Println(agentcard.RequirementsFor("message/send", false))
	fmt.Println(agentcard.RequirementsFor("SendStreamingMessage", true))
	fmt.Println(agentcard.RequirementsFor("tasks/pushNotificationConfig/set", false))
	// Output:
	// []
	// [streaming capability_extension]
	// [push_notifications]
}

func ExampleTiers() {
	tiers := agentcard.Tiers(map[string]any{
		"capabilities": map[string]any{"streaming": true, "stateTransitionHistory": true},
	})
	fmt.Println(tiers[agentcard.TierImplicit])
	fmt.Println(tiers[agentcard.TierDeclared])
	fmt.Println(tiers[agentcard.TierDeprecated])
	// Output:
	// [SendMessage GetTask ListTasks error_handling]
	// [streaming_message]
	// [state_transition_history]
}
