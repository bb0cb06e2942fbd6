package a2efront_test

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/a2efront"
)

// redisTimeout is generous: the race detector on a shared machine is slow.
const redisTimeout = 3 * time.Second

// a2efrontAttempts is the default MaxHandshakeAttempts.
const a2efrontAttempts = 3

type a2efrontConfig = a2efront.Config

const a2efrontSessionHeader = a2efront.SessionHeader

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
