// Package quickstart embeds the quickstart world's config and policy, so
// that `capgate demo` runs on a fresh machine with no files to find.
package quickstart
