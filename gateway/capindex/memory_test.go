package capindex_test

import (
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/capindex/capindextest"
)

func TestMemory(t *testing.T) {
	capindextest.Run(t, func(*testing.T) capindex.Index { return capindex.NewMemory(time.Now) })
}
