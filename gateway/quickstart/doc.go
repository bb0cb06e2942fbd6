// Package quickstart starts the quickstart world of DESIGN §9 in one
// process: the documents and summarizer example agents and the lab A2E
// host on loopback ports, and the gateway in front of them with the
// embedded quickstart config, policy and dev keys. Walkthrough narrates the
// story `capgate demo` tells and fails at the first step that does not
// behave, so the demo doubles as an end-to-end test.
//
// `capgate demo`, the README tutorial and the end-to-end tests all use this
// one world, so its names and values stay stable: agents documents and
// summarizer, the A2E host lab, principals alice, bob, carol and
// agent:summarizer with their dev keys, and the reports and hr collections.
package quickstart
