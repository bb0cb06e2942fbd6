package files

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names.
const (
	ToolRead   = "read_file"
	ToolSearch = "search_files"
	ToolWrite  = "write_file"
)

// File is one file of the corpus.
type File struct {
	// ID is its storage id, which callers through the gateway never see.
	ID string
	// Text is its content.
	Text string
}

// Corpus is what every new Server holds: two quarterly reports and a
// forecast of the finance team, and an HR file.
func Corpus() []File {
	return []File{
		{ID: "files/finance/q1-2026.md", Text: "Q1 2026: revenue 4.1M EUR, up 12% on Q4; margin 31%."},
		{ID: "files/finance/q2-2026.md", Text: "Q2 2026: revenue 4.4M EUR, up 7%; two new enterprise customers."},
		{ID: "files/finance/forecast-2027.md", Text: "Forecast 2027: revenue 19M EUR if the enterprise pipeline converts."},
		{ID: "files/hr/salaries.md", Text: "Salary bands 2026: engineering L3 62-70k, L4 72-85k."},
	}
}

// Options configures New.
type Options struct {
	// Logger receives the SDK's transport log; nil discards it.
	Logger *slog.Logger
	// Now is the clock of the call records; nil means time.Now.
	Now func() time.Time
}

// Call is one tool call that reached the server.
type Call struct {
	Time time.Time
	// Tool is the tool called.
	Tool string
	// Path is the storage id it was given, or the query of a search.
	Path string
}

// Server is the files MCP server. It is safe for concurrent use.
type Server struct {
	now     func() time.Time
	handler http.Handler

	mu    sync.Mutex
	files map[string]string
	calls []Call
}

// New builds a server holding Corpus.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{now: opts.Now, files: map[string]string{}}
	for _, f := range Corpus() {
		s.files[f.ID] = f.Text
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "files", Title: "capgate quickstart files", Version: "1.0.0"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: ToolRead, Description: "Read a file by its path."}, s.read)
	sdk.AddTool(srv, &sdk.Tool{Name: ToolSearch, Description: "Search the files' text; returns the paths that match."}, s.search)
	sdk.AddTool(srv, &sdk.Tool{Name: ToolWrite, Description: "Write a file: replaces its content."}, s.write)
	s.handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: opts.Logger})
	return s
}

// Handler serves the MCP endpoint, Streamable HTTP, on any path.
func (s *Server) Handler() http.Handler { return s.handler }

// Calls returns the tool calls that reached the server, oldest first.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// Text returns a file's current content.
func (s *Server) Text(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.files[id]
	return t, ok
}

func (s *Server) record(tool, path string) {
	s.calls = append(s.calls, Call{Time: s.now(), Tool: tool, Path: path})
}

// ReadArgs are read_file's arguments.
type ReadArgs struct {
	Path string `json:"path" jsonschema:"the file's path"`
}

// FileOut is read_file's structured content.
type FileOut struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (s *Server) read(_ context.Context, _ *sdk.CallToolRequest, in ReadArgs) (*sdk.CallToolResult, FileOut, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record(ToolRead, in.Path)
	text, ok := s.files[in.Path]
	if !ok {
		return nil, FileOut{}, fmt.Errorf("no such file: %s", in.Path)
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Path + ": " + text}}},
		FileOut{Path: in.Path, Content: text}, nil
}

// SearchArgs are search_files' arguments.
type SearchArgs struct {
	Query string `json:"query" jsonschema:"text to look for, case-insensitive"`
}

// SearchOut is search_files' structured content.
type SearchOut struct {
	Matches []string `json:"matches"`
}

func (s *Server) search(_ context.Context, _ *sdk.CallToolRequest, in SearchArgs) (*sdk.CallToolResult, SearchOut, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record(ToolSearch, in.Query)
	out := SearchOut{Matches: []string{}}
	q := strings.ToLower(in.Query)
	for id, text := range s.files {
		if strings.Contains(strings.ToLower(text), q) {
			out.Matches = append(out.Matches, id)
		}
	}
	slices.Sort(out.Matches)
	text := fmt.Sprintf("%d files match %q: %s", len(out.Matches), in.Query, strings.Join(out.Matches, ", "))
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

// WriteArgs are write_file's arguments.
type WriteArgs struct {
	Path    string `json:"path" jsonschema:"the file's path"`
	Content string `json:"content" jsonschema:"its new content"`
}

func (s *Server) write(_ context.Context, _ *sdk.CallToolRequest, in WriteArgs) (*sdk.CallToolResult, FileOut, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record(ToolWrite, in.Path)
	s.files[in.Path] = in.Content
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "wrote " + in.Path}}},
		FileOut{Path: in.Path, Content: in.Content}, nil
}
