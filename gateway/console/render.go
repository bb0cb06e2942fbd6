package console

import (
	"bytes"
	"html/template"
	"net/http"
	"time"
)

// pageNames are the templates that each fill the layout.
var pageNames = []string{"login", "error", "approvals", "capabilities", "revoke", "policy", "audit", "freeze", "shadow"}

func parsePages() (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"when": func(t time.Time) string {
			if t.IsZero() {
				return "—"
			}
			return t.UTC().Format("2006-01-02 15:04:05Z")
		},
	}
	out := map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, err
		}
		out[name] = t
	}
	return out, nil
}

// view is what every page template receives.
type view struct {
	Title string
	// Nav names the current page for the navigation bar.
	Nav string
	// Op is the signed-in operator; nil on the login and error pages.
	Op   *operator
	Page any
}

// render writes page with status, or a plain error if the template fails
// (rendered into a buffer first, so that a half page is never sent).
func (c *Console) render(w http.ResponseWriter, status int, page string, v view) {
	var buf bytes.Buffer
	if err := c.pages[page].Execute(&buf, v); err != nil {
		c.deps.Logger.Error("console: rendering failed", "page", page, "error", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// fail renders an error page saying msg.
func (c *Console) fail(w http.ResponseWriter, status int, msg string) {
	c.render(w, status, "error", view{Title: http.StatusText(status), Page: msg})
}
