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

	// ErrMalformedCapabilities means params.capabilities is not a list of
	// capability objects (or capability id strings). It also matches
	// documents.ErrInvalidParams, so the front answers -32602.
	ErrMalformedCapabilities = fmt.Errorf("summarizer: malformed params.capabilities: %w", documents.ErrInvalidParams)

	// ErrGatewayCall means a call to the gateway failed technically: no
	// connection, a non-2xx HTTP status, or an answer that is not a
	// JSON-RPC response. A JSON-RPC error from the gateway is not an
	// error: it is a refusal, reported in [Outcome].
	ErrGatewayCall = errors.New("summarizer: gateway call failed")
)
