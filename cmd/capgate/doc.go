// Command capgate is the capability-token authorization gateway: a reverse
// proxy in front of A2A agents and A2E environment hosts that lets a call
// through only with a task-scoped capability the grant policy allows.
//
//	capgate serve --config FILE        serve the gateway (audit trail on stdout, logs on stderr)
//	capgate demo                       walk through the quickstart world and exit 0 if all behaved
//	capgate demo --serve               serve the quickstart world until interrupted
//	capgate policy check|test|explain  work with grant policy files
//	capgate keys generate|hash         capability key files; dev key hashes
//	capgate token inspect              show a capability token's claims
//	capgate revoke                     revoke through a gateway's admin API
//	capgate approvals                  list, approve or deny requests waiting for approval
//	capgate audit verify               check the audit trail's hash chain
//	capgate bench                      load: capgate against a plain reverse proxy
//	capgate example-agents             serve the quickstart example agents and lab host
//	capgate version                    the module version and VCS revision
//
// Every command and subcommand answers -h, --help and help with its usage
// on standard output (exit 0), and `capgate help CMD...` is `capgate CMD...
// --help`. One renderer writes every usage: a group lists each command
// beneath it with the same synopsis the command's own usage shows, and the
// command's usage lists its flags from the flag set it parses. A usage
// mistake is named on standard error with the usage (exit 2); a mistyped
// command or flag gets the nearest known name instead ("did you mean
// --serve?"); any other failure exits 1.
//
// Every command runs in-process through run, with its standard streams and
// environment handed in, so the tests drive the same code as the binary.
package main
