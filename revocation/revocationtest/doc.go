// Package revocationtest is the conformance suite every revocation.Store
// must pass: the in-memory store, the Redis store on a single node and on
// Cluster, and the pub/sub-synced store. One suite, so that the stores
// cannot drift apart in what "revoked" means.
//
// The suite controls time through a Clock handed to the store's factory.
// Stores that expire entries by the injected clock (Memory) see time jump;
// stores whose backend expires entries by its own wall clock (Redis) are
// given short real TTLs and polled, never timed.
package revocationtest
