// Package notes is the quickstart "notes" agent: a plain A2A agent built
// on the official A2A Go SDK (a2asrv), the way a third party would write
// one. It knows nothing of the capability extension: it serves no
// extension method and trusts whoever reaches it. It exists to show
// capgate fronting an agent that has never heard of capabilities.
//
// # The one thing it checks
//
// The gateway decides a message by the skill it names, but this agent
// picks its action from the text or the data part. So, with one line of
// gateway/client (VouchedHandler in front of a2asrv's handler), it reads
// the operations the gateway vouches for in A2A-Capability-Operations,
// and refuses (a failed task, nothing changed) an action whose operation
// is not among them: notes.read needs "read", notes.write "write". A call
// that carries no capability is refused too. The gateway's config says
// so for this agent (messages.agent_enforces_operations).
//
// # What it serves
//
//   - POST on any path: the A2A JSON-RPC methods of a2asrv's stock handler
//     (message/send, message/stream, tasks/get, tasks/cancel,
//     tasks/resubscribe; push notifications are not supported), with
//     a2asrv's in-memory task store.
//   - GET /.well-known/agent-card.json: its agent card, naming two skills,
//     notes.read and notes.write.
//
// # What a message asks
//
// A message names notes by id ("notes/alice-groceries") in a data part
// or in its text:
//
//	{"kind":"data","data":{"skill":"notes.read","resourceId":"notes/alice-groceries"}}
//	{"kind":"data","data":{"skill":"notes.write","resourceId":"notes/alice-groceries","text":"butter"}}
//	read notes/alice-groceries notes/team-standup
//	append notes/alice-groceries: butter
//
// A data part may name several notes to read in resourceIds. When a
// message holds a data part, its text parts are not read.
//
// Every send is answered with a Task: completed, with one artifact per
// note touched (its title and text) and a status message; or failed, with
// a status message saying why. With Options.EchoIDs the agent also echoes
// the storage ids it touched in the task's metadata, the artifacts (name,
// metadata, text and data parts) and the status message; that mode exists
// only so tests can prove the gateway never lets such ids reach a caller.
// Without it, no answer ever carries a storage id.
package notes
