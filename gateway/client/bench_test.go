package client_test

import (
	"context"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart"
	"github.com/capgate/capgate/gateway/client"
)

// BenchmarkInvokeQuickstart measures one retrieve_document through the
// real gateway on loopback: client encode, gateway verify and proxy,
// agent answer, client decode.
func BenchmarkInvokeQuickstart(b *testing.B) {
	ctx := context.Background()
	w, err := quickstart.Start(ctx, quickstart.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	alice, _ := client.New(w.URL, "documents", client.Options{Credential: quickstart.AliceKey})
	caps, err := alice.Request(ctx, client.RequestParams{Grants: []string{"documents:read"}, ResourceQuery: &client.ResourceQuery{Collection: "reports"}})
	if err != nil {
		b.Fatal(err)
	}
	h, _ := caps[0].Handle("Q1 Financial Summary")
	args := map[string]any{"resourceHandle": h}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := alice.Invoke(ctx, caps[0], "retrieve_document", args); err != nil {
			b.Fatal(err)
		}
	}
}
