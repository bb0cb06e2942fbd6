// Package recordseal authenticates the records replicas keep in a shared
// store (Redis), so that whoever can write the store cannot forge or
// change one: the approval requests of gateway/approval and the A2E
// session records of gateway/a2efront are sealed by the same code.
//
// A Sealer computes the MAC of a record: HMAC-SHA256, under a key of at
// least MinKeyBytes (each user derives its own from the capability key
// set, under its own HKDF label), of the record's JSON as encoding/json
// writes it, base64url without padding. The caller clears the fields that
// the MAC does not cover (the MAC itself, a revision counter) before
// asking, and stores the MAC in the record. testdata/mac.golden pins the
// encoding: a change would make every stored record fail.
//
// A MAC authenticates; it neither encrypts nor orders: an earlier sealed
// copy of a record still verifies (see each user's package doc for what
// it does about rollbacks).
package recordseal
