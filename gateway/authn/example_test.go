package authn_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/capgate/capgate/gateway/authn"
)

func ExampleHashKey() {
	fmt.Println(authn.HashKey("alice-dev-key"))
	// Output: sha256:2ca8cf9905b6838481900ae48c8e6ee72226b226cc6c43e24a5f11f63ac067c1
}

func ExampleAuthenticator_AuthenticateToken() {
	a, err := authn.New(context.Background(), nil, []authn.DevKey{
		{Hash: authn.HashKey("alice-dev-key"), Principal: "user:alice@example.com", Groups: []string{"finance"}},
	}, authn.Options{})
	if err != nil {
		panic(err)
	}
	p, err := a.AuthenticateToken(context.Background(), "alice-dev-key")
	fmt.Println(p.ID, p.Issuer, p.Groups, p.HasGroup("finance"), err)

	_, err = a.AuthenticateToken(context.Background(), "mallory-key")
	fmt.Println(errors.Is(err, authn.ErrInvalidCredentials))
	// Output:
	// user:alice@example.com dev [finance] true <nil>
	// true
}

func ExampleMiddleware() {
	a, err := authn.New(context.Background(), nil, []authn.DevKey{
		{Hash: authn.HashKey("summarizer-dev-key"), Principal: "agent:summarizer"},
	}, authn.Options{})
	if err != nil {
		panic(err)
	}
	h := authn.Middleware(a, nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := authn.PrincipalFrom(r.Context())
		fmt.Fprintln(w, "hello", p.ID)
	}))

	for _, auth := range []string{"Bearer summarizer-dev-key", "Bearer wrong", ""} {
		r := httptest.NewRequest("POST", "/a2a/documents", nil)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Print(w.Code, " ", w.Header().Get("WWW-Authenticate"), " ", w.Body.String())
	}
	// Output:
	// 200  hello agent:summarizer
	// 401 Bearer realm="capgate", error="invalid_token" {"error":"invalid_token"}
	// 401 Bearer realm="capgate" {"error":"unauthorized"}
}
