// Package a2atasks is task ownership for A2A agents: a task belongs to
// the principal whose call the agent answered with it, and only that
// principal may call on it again.
//
// The A2A front learns owners only from upstream answers (Owners.Answer,
// one of its answer-pipeline processors) and allows a follow-up call on a
// task (get, cancel, resubscribe, the push-notification configs, a send
// continuing or referencing it) only to its owner (Owners.Gate); anyone
// else is told the task does not exist, exactly as the agent would say
// it, and the agent sees nothing. A listing's answer keeps only the
// caller's tasks, and its total counts only those.
//
// Where calls and answers name tasks is read as the agents' own decoders
// read it: member names under case folding and without protobuf's
// separators (jsonrpc.LenientName), at the top of a result and under a
// v1.0 wrapper. The answer side has a fast path that walks the answer's
// text (scan.go) and hands over to decoding whenever a name could read
// otherwise than it is written; a fuzz target holds the two to the same
// result on every answer the answer check accepts. It stops at the first
// result member (the check made names unique) and skips the result's
// content once.
package a2atasks
