package mcpserver

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// FuzzDecodeArgs: a tool's arguments are bytes from a client. Whatever they
// are, decoding answers a value or an error that names the tool and what it
// takes; it never panics.
func FuzzDecodeArgs(f *testing.F) {
	for _, seed := range []string{
		`{"pattern": "x", "paths": "a"}`,
		`{"pattern": "x", "paths": ["a", "b"], "limit": "3", "counts": "true"}`,
		`{"file_path": "a"}`, `{"pattern": null}`, `null`, ``, `[]`, `{"limit": 1e99}`,
		`{"pattern": "x", "limit": "-1"}`, `{"pattern": {"x": 1}}`, `{"lang": "go", "Pattern": "x"}`,
	} {
		f.Add([]byte(seed))
	}
	schema, err := jsonschema.For[searchIn](nil)
	if err != nil {
		f.Fatal(err)
	}
	fields := fieldsOf(reflect.TypeFor[searchIn](), schema)
	f.Fuzz(func(t *testing.T, raw []byte) {
		var in searchIn
		err := decodeArgs("search", raw, fields, &in)
		if err == nil {
			if in.Pattern == "" && !strings.Contains(string(raw), `"pattern"`) {
				t.Fatalf("accepted arguments without the required pattern: %q", raw)
			}
			return
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "search: ") || !strings.Contains(msg, "search takes pattern") {
			t.Fatalf("error does not name the tool and its fields: %q", msg)
		}
	})
}
