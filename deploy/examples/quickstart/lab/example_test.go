package lab_test

import (
	"fmt"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart/lab"
)

func ExampleCapabilityRegistry_Negotiate() {
	reg, _ := lab.NewCapabilityRegistry(lab.DefaultPlugins(time.Now)...)
	for _, c := range reg.Negotiate([]string{"tools", "memory", "env", "chains"}) {
		if c.Enabled {
			fmt.Println(c.Capability, "enabled by", c.Metadata["name"])
			continue
		}
		fmt.Println(c.Capability, "disabled:", c.Reason())
	}
	// Output:
	// tools enabled by basic-tools
	// memory enabled by kv-memory
	// env enabled by gridworld
	// chains disabled: no plugin loaded
}
