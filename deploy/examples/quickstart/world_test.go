package quickstart_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/deploy/examples/quickstart"
	"github.com/capgate/capgate/revocation/redistest"
)

// TestWalkthrough runs the whole narrated story, as `capgate demo` does.
func TestWalkthrough(t *testing.T) {
	w, err := quickstart.Start(context.Background(), quickstart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var out strings.Builder
	if err := w.Walkthrough(context.Background(), &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
}

// TestTwoWorldsAreReplicas starts two quickstart worlds sharing one Redis
// and one key file, as two `capgate demo --serve --redis --keys`
// processes would: a capability issued by one is served by the other.
func TestTwoWorldsAreReplicas(t *testing.T) {
	srv := redistest.Start(t)
	keys := filepath.Join(t.TempDir(), "keys.json")
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	if err := ks.SaveFile(keys); err != nil {
		t.Fatal(err)
	}
	opts := quickstart.Options{RedisURL: "redis://" + srv.Addr + "/0", KeysFile: keys}
	a, err := quickstart.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := quickstart.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	id := requestOn(t, a.URL)
	invoke := `{"jsonrpc":"2.0","id":2,"method":"a2a/skill/invoke","params":{"skill":"list_documents","capabilityId":"` + id + `"}}`
	if body := post(t, b.URL, invoke); !strings.Contains(body, `"result"`) {
		t.Fatalf("replica B refused a capability issued by A: %s", body)
	}
}

func requestOn(t *testing.T, base string) string {
	t.Helper()
	body := post(t, base, `{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/request","params":{"grants":["documents:read"],"resourceQuery":{"collection":"reports"}}}`)
	i := strings.Index(body, `"id":"cap_`)
	if i < 0 {
		t.Fatalf("no capability issued: %s", body)
	}
	rest := body[i+6:]
	return rest[:strings.IndexByte(rest, '"')]
}

func post(t *testing.T, base, body string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/a2a/documents", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+quickstart.AliceKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return sb.String()
}
