// Package client is the Go client for agent authors: it speaks capgate's
// capability methods (the SEP's a2a/capabilities/request, attenuate and
// revoke, a2a/skill/invoke, and delegated sends) to one agent through the
// gateway, in a few lines each:
//
//	c, _ := client.New("https://capgate.example.com", "documents", client.Options{Credential: token})
//	caps, _ := c.Request(ctx, client.RequestParams{Grants: []string{"documents:read"}, Purpose: "Summarize Q1"})
//	h, _ := caps[0].Handle("Q1 Financial Summary")
//	doc, err := c.Invoke(ctx, caps[0], "retrieve_document", map[string]any{"resourceHandle": h})
//	if errors.Is(err, client.ErrCapabilityRevoked) { … }
//
// # Why it exists
//
// Every agent behind capgate must request task-scoped capabilities, name one
// in every invocation, attenuate before it delegates and handle the
// gateway's refusals. Doing that with raw JSON-RPC means re-deriving the
// wire shapes and error codes in every agent; this package
// does it once, with the exact shapes the gateway speaks.
//
// # The agent's side: the resolution hook
//
// When an agent has no catalog in the gateway's config, the gateway asks
// the agent itself which resources a capability request designates: it
// calls the agent's a2a/resources/resolve with params {"principal",
// "collection", "filter"} and expects {"resources": [{"id", "collection",
// "displayName", "attributes"}]} back. The ids stay between the gateway
// and the agent; callers only ever see opaque handles and display names,
// and the gateway keeps only the resources that match the query and the
// policy. [ResolveHandler] implements the hook for any agent, however it
// is built, in a few lines: a [ResolveFunc] that lists the matching
// resources, and one middleware in front of the agent's JSON-RPC handler.
//
//	resolve := func(ctx context.Context, q client.ResourceQuery) ([]client.Resource, error) {
//		return myStore.Find(q.Collection, q.Filter), nil
//	}
//	mux.Handle("POST /", client.ResolveHandler(resolve)(a2asrv.NewJSONRPCHandler(h)))
//
// # The agent's side: operations it may perform
//
// The gateway decides a message by the skill it names; an agent that picks
// its action from free text or from its own reading of a data part must
// check that action itself, against the operations the gateway vouches
// for in A2A-Capability-Operations. [VouchedHandler] puts those headers in
// the request's context, which a2asrv hands on to the executor, and
// [RequireOperation] refuses an action outside them:
//
//	mux.Handle("POST /", client.VouchedHandler(a2asrv.NewJSONRPCHandler(h)))
//	…
//	if err := client.RequireOperation(ctx, "write"); err != nil { … } // in Execute
//
// [VouchedInterceptor] does the same as an a2asrv call interceptor, for
// transports that fill the call's request metadata.
//
// # What it guarantees
//
//   - A refusal is a value the caller can branch on: a JSON-RPC error is an
//     *RPCError (errors.As) carrying the code, message and stable reason
//     word, and it matches the sentinel of its reason (errors.Is with
//     ErrCapabilityRevoked, ErrGrantDenied, …). Technical failures wrap
//     other sentinels (ErrTransport, ErrUnauthenticated, ErrRedirect,
//     ErrMalformedResponse, …) and never match a reason's sentinel.
//   - Capability tokens and the credential go only to the configured
//     endpoint: redirects are refused, never followed, and the caller's
//     http.Client is copied, not changed.
//   - An answer is accepted only if it is the JSON-RPC 2.0 response to the
//     request sent (same id, exactly one of result and error) and no larger
//     than Options.MaxResponseBytes.
//   - Capability's String, GoString and LogValue omit the token, so logging
//     a capability does not leak it.
//   - UnsafeInspect decodes a token's claims without verifying anything,
//     and says so in its name. Only the gateway decides authority.
//   - No package-level mutable state; a Client is safe for concurrent use.
package client
