package hub

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cchub/codegraph"
	"cchub/workspace/wstest"
)

// confirmWorkspace writes files into a new temp workspace and opens a hub
// on it.
func confirmWorkspace(t *testing.T, files map[string]string) *Hub {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ws")
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return newTestHub(t, dir)
}

// defNamed is the one definition qual (Type.Name or Name) names in rel.
func defNamed(t *testing.T, h *Hub, rel, qual string) *codegraph.Def {
	t.Helper()
	res, err := h.Graph(context.Background(), GraphQuery{Op: "symbols", Name: qual})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Definitions {
		if d.Path == rel && d.Qual() == qual {
			return &d
		}
	}
	t.Fatalf("no definition %s in %s among %v", qual, rel, res.Definitions)
	return nil
}

// callAt is an edge from the call site where name is called in the line
// of rel that holds marker, to callee.
func callAt(t *testing.T, h *Hub, rel, marker, name string, callee *codegraph.Def) codegraph.Edge {
	t.Helper()
	data, err := h.Root.ReadText(rel)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, marker) {
			k := strings.Index(line, name+"(")
			if k < 0 {
				t.Fatalf("%q does not call %s", marker, name)
			}
			return codegraph.Edge{Callee: callee, Name: name, Path: rel, Line: i + 1, Col: k + 1, Confidence: codegraph.NameOnly}
		}
	}
	t.Fatalf("no line of %s holds %q", rel, marker)
	return codegraph.Edge{}
}

// confirmCase is an edge and the verdict it must get.
type confirmCase struct {
	what string
	edge codegraph.Edge
	want string
}

func checkVerdicts(t *testing.T, h *Hub, budget time.Duration, cases []confirmCase) string {
	t.Helper()
	edges := make([]codegraph.Edge, len(cases))
	for i, c := range cases {
		edges[i] = c.edge
	}
	vs, note := h.Confirmer(budget)(context.Background(), edges)
	if len(vs) != len(edges) {
		t.Fatalf("%d verdicts for %d edges", len(vs), len(edges))
	}
	for i, c := range cases {
		if vs[i] != c.want {
			t.Errorf("%s: verdict %q, want %q (note: %s)", c.what, vs[i], c.want, note)
		}
	}
	return note
}

const goConfirmSrc = `package ex

import (
	"io"
	"strings"
)

type Server struct{}

func (s *Server) Config() string { return "server" }

type Client struct{}

func (c *Client) Config() string { return "client" }

type Cmd struct{}

func (c *Cmd) Execute() error { return nil }

type Other struct{}

func (Other) Execute() error { return nil }

type App struct{ root *Cmd }

func (a *App) Root() *Cmd { return a.root }

type Runner interface{ Run() }

type Job struct{}

func (Job) Run() {}

type Walker struct{}

func (Walker) Run(steps int) {}

type Sink struct{}

func (Sink) Write(p []byte) (int, error) { return len(p), nil }

func Split(s string) []string { return nil }

type Hooks struct{ hook func() }

func hook() {}

func Use(s *Server, a *App, r Runner, w io.Writer, h Hooks) {
	_ = s.Config() // config
	_ = a.Root().Execute() // chain
	r.Run() // dynamic
	_, _ = w.Write(nil) // writer
	_ = strings.Split("a,b", ",") // library
	h.hook() // field
}

var top = new(Server).Config() // top

func Literal(v interface{ Config() string }) string {
	return v.Config() // literal
}
`

func TestConfirmGo(t *testing.T) {
	requireGopls(t)
	h := confirmWorkspace(t, map[string]string{"go.mod": "module ex\n\ngo 1.22\n", "ex.go": goConfirmSrc})
	def := func(q string) *codegraph.Def { return defNamed(t, h, "ex.go", q) }
	at := func(marker, name string, callee *codegraph.Def) codegraph.Edge {
		return callAt(t, h, "ex.go", marker, name, callee)
	}
	note := checkVerdicts(t, h, time.Minute, []confirmCase{
		{"s.Config() to Server.Config", at("// config", "Config", def("Server.Config")), codegraph.Confirmed},
		{"s.Config() to the decoy Client.Config", at("// config", "Config", def("Client.Config")), codegraph.Refuted},
		{"a.Root().Execute() to Cmd.Execute", at("// chain", "Execute", def("Cmd.Execute")), codegraph.Confirmed},
		{"a.Root().Execute() to the decoy Other.Execute", at("// chain", "Execute", def("Other.Execute")), codegraph.Refuted},
		{"r.Run() through Runner to Job.Run", at("// dynamic", "Run", def("Job.Run")), codegraph.Confirmed},
		{"r.Run() to Walker.Run, which does not implement Runner", at("// dynamic", "Run", def("Walker.Run")), codegraph.Refuted},
		{"w.Write through io.Writer to Sink.Write", at("// writer", "Write", def("Sink.Write")), codegraph.Confirmed},
		{"strings.Split to the workspace's Split", at("// library", "Split", def("Split")), codegraph.Refuted},
		{"h.hook() through a field to func hook", at("// field", "hook", def("hook")), ""},
		{"a top-level call to Server.Config", at("// top", "Config", def("Server.Config")), codegraph.Confirmed},
		{"a top-level call to the decoy Client.Config", at("// top", "Config", def("Client.Config")), codegraph.Refuted},
		// An interface written in a signature: it dispatches to any Config.
		{"v.Config() through an interface literal to Client.Config", at("// literal", "Config", def("Client.Config")), ""},
	})
	if !strings.Contains(note, "2 of 12 edges unconfirmed") || !strings.Contains(note, "called through a value") {
		t.Errorf("note = %q, want two edges unconfirmed, called through a value", note)
	}
}

func TestConfirmGoFromGraph(t *testing.T) {
	requireGopls(t)
	h := confirmWorkspace(t, map[string]string{"go.mod": "module ex\n\ngo 1.22\n", "ex.go": goConfirmSrc})
	res, err := h.Graph(context.Background(), GraphQuery{Op: "callers", Name: "Cmd.Execute"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Edges) == 0 {
		t.Fatal("the graph has no callers of Cmd.Execute")
	}
	vs, note := h.Confirmer(time.Minute)(context.Background(), res.Edges)
	for i, e := range res.Edges {
		if vs[i] != codegraph.Confirmed {
			t.Errorf("edge %s:%d:%d to %s: %q, want confirmed (note: %s)", e.Path, e.Line, e.Col, e.Callee.Qual(), vs[i], note)
		}
	}
}

func TestConfirmPython(t *testing.T) {
	wstest.RequireProgram(t, "pyright-langserver")
	h := confirmWorkspace(t, map[string]string{
		"pyproject.toml":  "[project]\nname = \"app\"\nversion = \"0.1.0\"\n",
		"app/__init__.py": "",
		"app/models.py": `from typing import Protocol


class Server:
    def config(self) -> str:
        return "server"


class Client:
    def config(self) -> str:
        return "client"


class Base:
    def config(self) -> str:
        return "base"


class Middle(Base):
    pass


class Derived(Middle):
    def config(self) -> str:
        return "derived"


class HasConfig(Protocol):
    def config(self) -> str: ...


def build() -> str:
    return "built"
`,
		"app/use.py": `from app.models import Base, HasConfig, Server


def known() -> str:
    s = Server()
    return s.config()  # known


def unknown(x) -> str:
    return x.config()  # unknown


def virtual(b: Base) -> str:
    return b.config()  # virtual


def structural(p: HasConfig) -> str:
    return p.config()  # structural


def build() -> str:
    return "local"


def local() -> str:
    return build()  # local
`,
	})
	m := func(q string) *codegraph.Def { return defNamed(t, h, "app/models.py", q) }
	at := func(marker, name string, callee *codegraph.Def) codegraph.Edge {
		return callAt(t, h, "app/use.py", marker, name, callee)
	}
	note := checkVerdicts(t, h, time.Minute, []confirmCase{
		{"s.config() to Server.config", at("# known", "config", m("Server.config")), codegraph.Confirmed},
		{"s.config() to the decoy Client.config", at("# known", "config", m("Client.config")), codegraph.Refuted},
		{"x.config() on an unknown type to Client.config", at("# unknown", "config", m("Client.config")), ""},
		{"b.config() to Base.config", at("# virtual", "config", m("Base.config")), codegraph.Confirmed},
		{"b.config() to Derived.config, an override in a subclass", at("# virtual", "config", m("Derived.config")), ""},
		{"b.config() to the unrelated Client.config", at("# virtual", "config", m("Client.config")), codegraph.Refuted},
		{"p.config() through a Protocol to Client.config", at("# structural", "config", m("Client.config")), ""},
		{"build() to the other module's build", at("# local", "build", m("build")), codegraph.Refuted},
	})
	for _, want := range []string{"3 of 8 edges unconfirmed", "2 the call may dispatch to the callee at run time", "1 no definition found at the call site"} {
		if !strings.Contains(note, want) {
			t.Errorf("note = %q, want it to say %q", note, want)
		}
	}
}

func TestConfirmNotes(t *testing.T) {
	requireGopls(t)
	h := confirmWorkspace(t, map[string]string{
		"go.mod":   "module ex\n\ngo 1.22\n",
		"ex.go":    goConfirmSrc,
		"tool.lua": "local function run() end\nrun()\n",
	})
	lua := codegraph.Edge{Callee: &codegraph.Def{Name: "run", Kind: "func", Path: "tool.lua", Start: 1, End: 1, Language: "lua"}, Name: "run", Path: "tool.lua", Line: 2, Col: 1}
	goEdge := callAt(t, h, "ex.go", "// config", "Config", defNamed(t, h, "ex.go", "Server.Config"))

	vs, note := h.Confirmer(time.Minute)(context.Background(), []codegraph.Edge{lua, goEdge})
	if vs[0] != "" || vs[1] != codegraph.Confirmed {
		t.Errorf("verdicts %q, want no answer for the Lua call and the Go one confirmed", vs)
	}
	if want := "1 of 2 edges unconfirmed: 1 no language server for .lua files"; note != want {
		t.Errorf("note = %q, want %q", note, want)
	}

	vs, note = h.Confirmer(time.Nanosecond)(context.Background(), []codegraph.Edge{goEdge, goEdge})
	if vs[0] != "" || vs[1] != "" {
		t.Errorf("verdicts %q within a nanosecond, want none", vs)
	}
	if want := "2 of 2 edges unconfirmed: 2 out of time after 1ns"; note != want {
		t.Errorf("note = %q, want %q", note, want)
	}
}

func TestConfirmTypeScript(t *testing.T) {
	wstest.RequireProgram(t, "typescript-language-server")
	h := confirmWorkspace(t, map[string]string{
		"package.json":  "{\"name\": \"app\", \"version\": \"1.0.0\"}\n",
		"tsconfig.json": "{\"compilerOptions\": {\"strict\": true, \"target\": \"es2020\", \"module\": \"commonjs\"}}\n",
		"src/lib.ts": `export interface Shape {
  area(): number;
}

export class Square implements Shape {
  constructor(private side: number) {}
  area(): number {
    return this.side * this.side;
  }
}

export class Board {
  area(): number {
    return 0;
  }
}

export function render(): string {
  return "lib";
}
`,
		"src/use.ts": `import { Shape, Square } from "./lib";

function render(): string {
  return "local";
}

export function total(s: Shape): number {
  return s.area(); // through
}

export function show(): string {
  return render(); // local
}

export const sq = new Square(2).area(); // direct
`,
	})
	lib := func(q string) *codegraph.Def { return defNamed(t, h, "src/lib.ts", q) }
	at := func(marker, name string, callee *codegraph.Def) codegraph.Edge {
		return callAt(t, h, "src/use.ts", marker, name, callee)
	}
	checkVerdicts(t, h, 2*time.Minute, []confirmCase{
		{"s.area() through Shape to Square.area", at("// through", "area", lib("Square.area")), codegraph.Confirmed},
		{"s.area() through Shape to Board.area (structural: not refuted)", at("// through", "area", lib("Board.area")), ""},
		{"render() to the other module's render", at("// local", "render", lib("render")), codegraph.Refuted},
		{"new Square(2).area() to Square.area", at("// direct", "area", lib("Square.area")), codegraph.Confirmed},
		{"new Square(2).area() to Board.area, a method of another class", at("// direct", "area", lib("Board.area")), ""},
	})
}
