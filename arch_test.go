// Package ldanalyze_test holds the module's architecture test: the
// dependency rules of the README's ARCHITECTURE section, checked against
// the packages' own import lists.
package ldanalyze_test

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ldanalyze/ldanalyze"

// forbidden are the dependency rules: no package of the key may depend on
// any package of the value, directly or through other packages of the
// module (test files are not counted). Analyses take data, not formats
// (issue 14): queueing and scale take plain slices, not samples or knee
// results; the Prometheus readers know no knee; the checks take the load
// generator's data, not a Prometheus export; the readers and the timeline
// know no analysis; no library package reaches the command layer.
var forbidden = map[string][]string{
	"pkg/queueing": {"pkg/ingest", "pkg/knee"},
	"pkg/scale":    {"pkg/ingest", "pkg/knee"},
	"pkg/prom":     {"pkg/knee"},
	"pkg/checks":   {"pkg/prom"},
	"pkg/knee":     {"pkg/prom", "pkg/checks", "pkg/pipeline"},
	"pkg/ingest":   {"pkg/timeline", "pkg/knee", "pkg/checks", "pkg/prom", "pkg/pipeline"},
	"pkg/timeline": {"pkg/knee", "pkg/checks", "pkg/prom", "pkg/pipeline"},
}

// TestDependencies fails when a package depends on one the rules forbid,
// naming the chain of imports that leads there.
func TestDependencies(t *testing.T) {
	g := imports(t)
	for from, bad := range forbidden {
		if _, ok := g[from]; !ok {
			t.Errorf("rule for %s: no such package", from)
			continue
		}
		for _, to := range bad {
			if path := chain(g, from, to); path != nil {
				t.Errorf("%s must not depend on %s: %s", from, to, strings.Join(path, " → "))
			}
		}
	}
}

// TestNoLibraryImportsCommand: nothing imports cmd/ or the CLI's glue
// (internal/cliapp) but the command itself.
func TestNoLibraryImportsCommand(t *testing.T) {
	for from, tos := range imports(t) {
		if strings.HasPrefix(from, "cmd/") {
			continue
		}
		for _, to := range tos {
			if strings.HasPrefix(to, "cmd/") || to == "internal/cliapp" {
				t.Errorf("%s imports %s", from, to)
			}
		}
	}
}

// imports maps every package directory of the module (relative path) to
// the module packages its non-test files import, as the go command sees
// them for this platform.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	g := map[string][]string{}
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); p != "." && (n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
			return filepath.SkipDir
		}
		pkg, err := build.Default.ImportDir(p, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel := filepath.ToSlash(p)
		for _, imp := range pkg.Imports {
			if strings.HasPrefix(imp, module+"/") {
				g[rel] = append(g[rel], strings.TrimPrefix(imp, module+"/"))
			}
		}
		if _, ok := g[rel]; !ok {
			g[rel] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// chain is the import path from → … → to (breadth first: the shortest),
// nil when from does not depend on to.
func chain(g map[string][]string, from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range g[p] {
			if _, seen := prev[q]; seen {
				continue
			}
			prev[q] = p
			if q == to {
				path := []string{q}
				for r := p; r != ""; r = prev[r] {
					path = append(path, r)
				}
				slices.Reverse(path)
				return path
			}
			queue = append(queue, q)
		}
	}
	return nil
}

// maxCommandLines bounds the non-test lines of cmd/ldanalyze: the
// commands stay thin (flags → options → package calls → renderer), and
// logic goes to internal/cliapp, internal/outfile or pkg/.
const maxCommandLines = 2000

// TestCommandLayerSize fails when cmd/ldanalyze's non-test Go files
// together reach maxCommandLines lines.
func TestCommandLayerSize(t *testing.T) {
	files, err := filepath.Glob("cmd/ldanalyze/*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n += strings.Count(string(b), "\n")
	}
	if n >= maxCommandLines {
		t.Errorf("cmd/ldanalyze has %d non-test lines, want fewer than %d: move logic into internal/cliapp or a package", n, maxCommandLines)
	}
}
