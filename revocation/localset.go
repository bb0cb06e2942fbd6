package revocation

import "time"

// LocalSet describes a store's in-process set of revocations, for the
// gateway's metrics: how many entries it holds, up to when it is known
// complete, and how its revocations' acknowledgements went.
type LocalSet struct {
	// Size is the number of entries, expired ones not yet pruned included.
	Size int
	// SyncedAt is the moment up to which the set is known complete; zero
	// while it is not.
	SyncedAt time.Time
	// UnconfirmedRevokes, MissingAcks and DroppedAcks are the counters of
	// SyncedStats; zero for a store without replicas.
	UnconfirmedRevokes, MissingAcks, DroppedAcks uint64
}

// LocalSet reports the synced local set.
func (s *Synced) LocalSet() LocalSet {
	st := s.Stats()
	return LocalSet{Size: st.Size, SyncedAt: st.SyncedAt,
		UnconfirmedRevokes: st.UnconfirmedRevokes, MissingAcks: st.MissingAcks, DroppedAcks: st.DroppedAcks}
}

// LocalSet reports the memory store's set, which is the whole truth and
// so always complete.
func (m *Memory) LocalSet() LocalSet {
	return LocalSet{Size: m.Len(), SyncedAt: m.now()}
}
