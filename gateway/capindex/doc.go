// Package capindex maps capability ids to the tokens the gateway issued, so
// that a caller may invoke with a capabilityId alone, as the SEP's examples
// do.
//
// The index is not trusted to hold authority. Everything read from it is a
// token that the gateway verifies exactly like a presented one, so whoever
// can write to the index (a shared Redis, say) still cannot mint a
// capability. Besides the token, a record keeps what is not in the token
// but callers need back: the display names of the resource handles.
//
// A record keeps the token in binary (captoken.Packed), about three
// quarters of the compact string, which VerifyPacked verifies without
// allocating the string again on a cache hit. The in-memory index keeps one
// copy of what records share (see Memory); Redis keeps a strict binary
// form (see Redis).
//
// Losing the index is safe. When Redis comes back without its data (a
// restart without persistence, FLUSHALL, a failover to an empty replica)
// the records are gone and a capabilityId alone is answered as unknown: the
// call is refused, never allowed, and a caller that presents its token is
// served as before. The index needs no loss detection of its own; the
// revocation store, which does, makes the gateway fail closed meanwhile.
//
// Listings (the admin API's and the console's) must not hide a live
// capability: a caller that presents its token still invokes with no
// record at all. So Redis's listings name, in an *UnreadableError, every
// listed capability whose record does not read, and every one whose
// record is gone although the sorted set's score, its expiry, lies more
// than a margin for clock skew past now (a DEL of the record, or an
// eviction under maxmemory). Put writes a record before the entries that
// list it, and takes both back when it fails, so that a listing names
// neither a capability on its way into the index nor one whose issuance
// was refused. What listings cannot see is what left no trace in the
// sorted sets they read: a capability taken out of them (ZREM), a set
// deleted or evicted, or the whole index lost, as above. Such a
// capability is absent from the listings, silently, while its token
// still invokes until it expires or is revoked.
package capindex
