package client_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/capgate/capgate/gateway/client"
)

// An agent behind the gateway refuses an action its caller's capability
// does not cover: VouchedHandler reads the headers the gateway vouches
// for, and RequireOperation checks the action against them.
func ExampleRequireOperation() {
	appendToNote := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := client.RequireOperation(r.Context(), "write"); err != nil {
			fmt.Println("refused:", errors.Is(err, client.ErrOperationNotPermitted))
			return
		}
		fmt.Println("appended")
	})
	agent := client.VouchedHandler(appendToNote)

	for _, ops := range []string{"read", "read,write"} {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.Header.Set("A2A-Capability-Id", "cap_1")
		r.Header.Set("A2A-Capability-Operations", ops) // set by the gateway
		agent.ServeHTTP(httptest.NewRecorder(), r)
	}
	// Output:
	// refused: true
	// appended
}
