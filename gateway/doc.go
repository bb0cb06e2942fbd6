// Package gateway assembles capgate's HTTP surface: authentication, the
// JSON-RPC front for A2A agents, agent cards and the reverse proxy to the
// upstream agents. Sub-packages hold each step of the request path so that
// every step can be tested on its own.
package gateway
