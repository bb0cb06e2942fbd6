// Package interop holds capgate's interoperability tests: the official A2A
// SDKs, with their default settings, used as real clients and real agents
// through a real gateway.
//
// The gateway is the quickstart world's (gateway.FromConfig on the
// quickstart config) with two more agents built on @a2a-js/sdk: one that
// serves A2A v1.0 only and one that serves v1.0 and v0.3. The quickstart's
// documents agent, built on github.com/a2aproject/a2a-go, is the v0.3-only
// upstream. Clients are the @a2a-js/sdk client (driven through the scripts
// in js/, run with node) and the a2a-go client.
//
// The JavaScript dependencies are pinned by js/package-lock.json and are
// installed with
//
//	npm ci --prefix gateway/interop/js
//
// The tests never download anything: without js/node_modules they skip,
// or fail when the CI environment variable is set.
package interop
