package loadtest

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
)

// heapWorkers is how many callers issue the capabilities the heap figure
// counts.
const heapWorkers = 8

// Heap is how much heap the gateway keeps per live capability: the
// catalog agent's capabilities (no upstream state), issued and not used.
type Heap struct {
	// Capabilities is how many were issued.
	Capabilities int
	// BytesPerCapability is the growth of the live heap (after a GC)
	// over the issuances, per capability. It counts the whole process,
	// but nothing else in it grows meanwhile.
	BytesPerCapability float64
}

// MeasureHeap issues n capabilities from the lab's catalog gateway and
// measures the live heap before and after.
func MeasureHeap(ctx context.Context, l *Lab, n int) (*Heap, error) {
	if l.Catalog == nil {
		return nil, fmt.Errorf("%w: the catalog capgate is not running", ErrInvalidOptions)
	}
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: heapWorkers}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	before := liveHeap()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, heapWorkers)
	for w := range heapWorkers {
		wg.Go(func() {
			for next.Add(1) <= int64(n) && errs[w] == nil {
				_, errs[w] = post(ctx, client, l.Catalog.Server.URL+agentPath, []byte(IssuanceBody))
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("loadtest: heap figure: issuance: %w", err)
		}
	}
	tr.CloseIdleConnections()
	after := liveHeap()
	return &Heap{Capabilities: n, BytesPerCapability: float64(int64(after)-int64(before)) / float64(n)}, nil
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
