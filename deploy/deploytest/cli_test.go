package deploytest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// usedCommand is a capgate command line the deployment material runs or
// quotes, and the flags it uses.
type usedCommand struct {
	command string // "serve", "keys generate", …
	flags   []string
}

// usedCommands is the table of every capgate command and flag that the
// shipped deployment files run or tell the reader to run. The tests below
// check that each exists in cmd/capgate, and that the files use nothing
// outside this table.
func usedCommands() []usedCommand {
	return []usedCommand{
		{"serve", []string{"config"}},
		{"example-agents", []string{"documents", "summarizer", "lab", "notes", "files", "gateway"}},
		{"keys generate", []string{"out", "rotate", "activate", "if-absent"}},
		{"keys activate", []string{"keys"}},
		{"keys prune", []string{"keys", "older-than"}},
		{"revoke", []string{"key", "capability"}},
		{"policy check", []string{"config"}},
		{"policy test", []string{"config"}},
	}
}

// flagSetOf names the flag.NewFlagSet that parses each command's flags.
func flagSetOf(command string) string {
	if _, sub, ok := strings.Cut(command, " "); ok && strings.HasPrefix(command, "policy ") {
		return sub // policy's flag sets are named check, test, explain
	}
	return command
}

// cliSource is what cmd/capgate's Go source defines.
type cliSource struct {
	commands map[string]bool            // the names in the command tree, e.g. "keys generate"
	flags    map[string]map[string]bool // flag set name -> flag names
}

// readCLISource parses cmd/capgate's non-test files: the commands are the
// name fields of the tree func commands builds, and a function that calls flag.NewFlagSet(N)
// defines N's flags with fs.String("name", …), fs.BoolVar(&v, "name", …)…
func readCLISource(t *testing.T) cliSource {
	t.Helper()
	src := cliSource{commands: map[string]bool{}, flags: map[string]map[string]bool{}}
	files, _ := filepath.Glob(path("cmd", "capgate", "*.go"))
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, decl := range file.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
				src.readFunc(fn)
			}
		}
	}
	if len(src.commands) == 0 || len(src.flags) == 0 {
		t.Fatal("found no commands or flag sets in cmd/capgate")
	}
	return src
}

func (s cliSource) readFunc(fn *ast.FuncDecl) {
	var sets []string
	var flags []string
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			if key, ok := n.Key.(*ast.Ident); ok && key.Name == "name" && fn.Name.Name == "commands" {
				if v, ok := stringLit(n.Value); ok {
					s.commands[v] = true
				}
			}
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if sel.Sel.Name == "NewFlagSet" && len(n.Args) > 0 {
				if v, ok := stringLit(n.Args[0]); ok {
					sets = append(sets, v)
				}
			} else if isFlagDefiner(sel.Sel.Name) {
				for _, a := range n.Args {
					if v, ok := stringLit(a); ok {
						flags = append(flags, v)
						break
					}
				}
			}
		}
		return true
	})
	for _, set := range sets {
		if s.flags[set] == nil {
			s.flags[set] = map[string]bool{}
		}
		for _, f := range flags {
			s.flags[set][f] = true
		}
	}
}

func isFlagDefiner(name string) bool {
	return slices.Contains([]string{"String", "Bool", "Int", "Int64", "Uint", "Duration", "Float64", "Var",
		"StringVar", "BoolVar", "IntVar", "Int64Var", "DurationVar", "Func", "BoolFunc", "TextVar"}, name)
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	v, err := strconv.Unquote(lit.Value)
	return v, err == nil
}

// TestUsedCommandsExist: every command and flag of the table is defined.
func TestUsedCommandsExist(t *testing.T) {
	src := readCLISource(t)
	for _, u := range usedCommands() {
		if !src.commands[u.command] {
			t.Errorf("capgate %s: no such command in cmd/capgate/main.go", u.command)
		}
		set := src.flags[flagSetOf(u.command)]
		if set == nil && len(u.flags) > 0 {
			t.Errorf("capgate %s: no flag set %q", u.command, flagSetOf(u.command))
		}
		for _, f := range u.flags {
			if !set[f] {
				t.Errorf("capgate %s --%s: no such flag", u.command, f)
			}
		}
	}
}

// TestShippedCommandsAreInTheTable: the command lines the files run
// (Dockerfile CMD, compose commands, container args) and the ones their
// comments quote use only commands and flags of the table.
func TestShippedCommandsAreInTheTable(t *testing.T) {
	var lines [][]string
	df := loadDockerfile(t)
	lines = append(lines, df.cmd)
	for _, s := range loadCompose(t).Services {
		if s.Image != "" && repo(s.Image) == repo(loadCompose(t).Services["capgate-a"].Image) {
			lines = append(lines, s.Command)
		}
	}
	_, k := capgatePod(t)
	lines = append(lines, k.Args)
	for _, f := range shippedTextFiles(t) {
		lines = append(lines, quotedCommands(string(readFile(t, f)))...)
	}
	if len(lines) < 8 {
		t.Fatalf("found only %d command lines; the scan is broken", len(lines))
	}
	table := map[string][]string{}
	for _, u := range usedCommands() {
		table[u.command] = u.flags
	}
	for _, argv := range lines {
		cmd, flags := splitCommand(argv)
		allowed, ok := table[cmd]
		if !ok {
			t.Errorf("capgate %s (from %q) is not in usedCommands", cmd, argv)
			continue
		}
		for _, f := range flags {
			if !slices.Contains(allowed, f) {
				t.Errorf("capgate %s --%s (from %q) is not in usedCommands", cmd, f, argv)
			}
		}
	}
}

// shippedTextFiles are the deployment files whose comments may quote
// capgate command lines.
func shippedTextFiles(t *testing.T) []string {
	t.Helper()
	out := []string{"docker-compose.yaml", filepath.Join("deploy", "Dockerfile")}
	for _, dir := range []string{"kubernetes", filepath.Join("examples", "compose"), filepath.Join("examples", "production")} {
		entries, err := os.ReadDir(path("deploy", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			out = append(out, filepath.Join("deploy", dir, e.Name()))
		}
	}
	return out
}

// quotedCommand finds "capgate <command> …" (or "docker compose run --rm
// keys <command> …", which runs the capgate image) in prose, up to the end of the
// line, a backtick, a pipe, a shell operator or a parenthesis.
var quotedCommand = regexp.MustCompile("(?:capgate|run --rm keys) ((?:serve|demo|keys|token|policy|example-agents|revoke|audit)\\b[^`|&;()\\n]*)")

func quotedCommands(text string) [][]string {
	var out [][]string
	text = regexp.MustCompile(`\n\s*#\s*`).ReplaceAllString(text, "\n") // comment markers
	text = strings.ReplaceAll(text, "\\\n", " ")                        // shell continuations
	for _, m := range quotedCommand.FindAllStringSubmatch(text, -1) {
		out = append(out, strings.Fields(m[1]))
	}
	return out
}

// splitCommand returns the command ("keys generate") and the flag names of
// a capgate argv.
func splitCommand(argv []string) (string, []string) {
	if len(argv) == 0 {
		return "", nil
	}
	cmd := argv[0]
	rest := argv[1:]
	if slices.Contains([]string{"keys", "token", "policy"}, cmd) && len(rest) > 0 {
		cmd += " " + rest[0]
		rest = rest[1:]
	}
	var flags []string
	for _, a := range rest {
		if a == "--" {
			break // the flags end; what follows is arguments
		}
		if strings.HasPrefix(a, "-") {
			name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
			flags = append(flags, name)
		}
	}
	return cmd, flags
}
