package summarizer

import (
	"errors"
	"fmt"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
)

// Sentinel errors; match them with errors.Is.
var (
	// ErrInvalidOptions means [Options] failed validation.
	ErrInvalidOptions = errors.New("summarizer: invalid options")

	// ErrMalformedCapabilities means the delegated capabilities (in
	// params.capabilities or under the extension's URI in metadata) are not
	// a list of capability objects (or capability id strings), or are in
	// more than one place. It also matches
	// documents.ErrInvalidParams, so the front answers -32602.
	ErrMalformedCapabilities = fmt.Errorf("summarizer: malformed delegated capabilities: %w", documents.ErrInvalidParams)

	// ErrGatewayCall means a call to the gateway failed technically: no
	// connection, a non-2xx HTTP status, or an answer that is not a
	// JSON-RPC response. A JSON-RPC error from the gateway is not an
	// error: it is a refusal, reported in [Outcome].
	ErrGatewayCall = errors.New("summarizer: gateway call failed")
)
