package loadtest_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/capgate/capgate/cmd/capgate/internal/loadtest"
)

// Percentiles use the nearest-rank method on sorted samples.
func ExamplePercentile() {
	sorted := []time.Duration{1 * time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond, 4 * time.Millisecond}
	fmt.Println(loadtest.Percentile(sorted, 50), loadtest.Percentile(sorted, 99), loadtest.Percentile(sorted, 99.9))
	// Output: 2ms 4ms 4ms
}

// An answer counts as a success only when it is HTTP 200 with a JSON-RPC
// result and no error member.
func ExampleCheckResponse() {
	fmt.Println(loadtest.CheckResponse(200, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)))
	err := loadtest.CheckResponse(200, []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32043}}`))
	fmt.Println(errors.Is(err, loadtest.ErrRPCError))
	err = loadtest.CheckResponse(401, nil)
	fmt.Println(errors.Is(err, loadtest.ErrStatus))
	// Output:
	// <nil>
	// true
	// true
}

// The plan and its time budget are known before anything runs.
func ExampleOptions_Plan() {
	o := loadtest.Options{Conns: []int{1, 64}, Variants: []loadtest.Variant{loadtest.VariantMemory}}.WithDefaults()
	steps := o.Plan(o.Variants)
	for _, s := range steps {
		fmt.Println(s.Target, s.Variant, s.Conns)
	}
	fmt.Println("load time:", o.Budget(steps))
	// Output:
	// upstream  1
	// baseline  1
	// capgate memory 1
	// mcp memory 1
	// upstream  64
	// baseline  64
	// capgate memory 64
	// mcp memory 64
	// issuance memory 64
	// issuance-catalog memory 64
	// attenuation memory 64
	// load time: 1m6s
}
