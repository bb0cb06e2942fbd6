package capindex

// The Redis record codec, for the external tests.
var (
	EncodeRecord = encodeRecord
	DecodeRecord = decodeRecord
	ErrGarbled   = errGarbled
)

// MissingMargin is how far past now a listed expiry must lie for an
// absent record to be named missing.
const MissingMargin = missingMargin
