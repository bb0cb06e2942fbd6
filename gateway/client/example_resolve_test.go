package client_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart/notes"
	"github.com/capgate/capgate/gateway/client"
)

// A plain A2A agent (here the quickstart's notes agent, built on the A2A
// SDK alone) gets the gateway's resolution hook in a few lines: list the
// resources that match the query, and mount ResolveHandler in front of
// the agent's handler. Every other request reaches the agent unchanged.
func ExampleResolveHandler() {
	agent, err := notes.New(notes.Options{BaseURL: "http://127.0.0.1:9104/", Logger: slog.New(slog.DiscardHandler), Now: time.Now})
	if err != nil {
		fmt.Println(err)
		return
	}
	resolve := func(ctx context.Context, q client.ResourceQuery) ([]client.Resource, error) {
		if q.Collection != "" && q.Collection != "notes" {
			return nil, nil
		}
		var found []client.Resource
		for _, n := range agent.Notes() {
			found = append(found, client.Resource{ID: n.ID, Collection: "notes", DisplayName: n.Title})
		}
		return found, nil
	}
	srv := httptest.NewServer(client.ResolveHandler(resolve)(agent))
	defer srv.Close()

	// What the gateway sends when alice asks for a capability on the
	// collection notes:
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"a2a/resources/resolve","params":{"principal":"user:alice@example.com","collection":"notes"}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(answer))
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{"resources":[{"id":"notes/alice-groceries","collection":"notes","displayName":"Alice's groceries","attributes":{}},{"id":"notes/bob-ideas","collection":"notes","displayName":"Bob's ideas","attributes":{}},{"id":"notes/team-standup","collection":"notes","displayName":"Team stand-up","attributes":{}}]}}
}
