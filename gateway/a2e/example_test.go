package a2e_test

import (
	"fmt"
	"time"

	"github.com/capgate/capgate/gateway/a2e"
)

func ExampleDecodeLine() {
	line := []byte(`{"a2e":"1.0","type":"tool/call/req","id":"c1","tool_name":"echo","arguments":{"text":"hi"}}` + "\n")
	m, err := a2e.DecodeLine(line, 1<<20)
	if err != nil {
		fmt.Println(err)
		return
	}
	call := m.Body.(*a2e.ToolCallReq)
	capability, always := a2e.CapabilityFor(m.Type)
	fmt.Println(m.Type, m.ID, call.ToolName, capability, always)

	_, err = a2e.DecodeLine([]byte(`{"type":"ping","id":"p","Type":"env/step/req"}`), 1<<20)
	fmt.Println(err != nil)
	// Output:
	// tool/call/req c1 echo tools false
	// true
}

func ExampleEncode() {
	in, _ := a2e.DecodeLine([]byte(`{"version":"1.0","type":"env/reset/req","id":"r1"}`), 0)
	env := in.Reply(a2e.TypeError, "e1", time.Unix(1716123456, 0), a2e.Version1)
	line, _ := a2e.Encode(env, &a2e.Error{
		ReqID: in.ID, Code: a2e.CodeCapabilityMissing, CapabilityName: "env",
	})
	fmt.Println(string(line))
	// Output:
	// {"type":"error","id":"e1","version":"1.0","ts":1716123456,"req_id":"r1","code":"capability_missing","retryable":false,"capability_name":"env"}
}

func ExampleCapabilityFor() {
	for _, typ := range []string{"memory/store/req", "handshake/req", "teleport"} {
		c, always := a2e.CapabilityFor(typ)
		fmt.Printf("%s: %q %v\n", typ, c, always)
	}
	// Output:
	// memory/store/req: "memory" false
	// handshake/req: "" true
	// teleport: "" false
}
