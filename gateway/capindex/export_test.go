package capindex

// The Redis record codec, for the external tests.
var (
	EncodeRecord = encodeRecord
	DecodeRecord = decodeRecord
	ErrGarbled   = errGarbled
)
