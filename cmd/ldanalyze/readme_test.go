package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readmeCommand is an ldanalyze command line of the README: its text, its
// arguments and the exit code it must give.
type readmeCommand struct {
	line string
	args []string
	// exits are the accepted exit codes: 0, or what a "# exit N" comment
	// says; an inline example may also find a failure (1).
	exits []int
}

// readmeCommands returns every ldanalyze command of the README: each line
// of a ```sh block that starts with "ldanalyze " or "go run
// ./cmd/ldanalyze ", and each inline code span that starts with
// "ldanalyze ".
func readmeCommands(md string) ([]readmeCommand, error) {
	var out []readmeCommand
	add := func(line string, inline bool) error {
		args, comment, err := shellWords(line)
		if err != nil {
			return fmt.Errorf("%q: %v", line, err)
		}
		if len(args) >= 3 && strings.Join(args[:3], " ") == "go run ./cmd/ldanalyze" {
			args = append([]string{"ldanalyze"}, args[3:]...)
		}
		c := readmeCommand{line: line, args: args[1:], exits: []int{0}}
		if m := regexp.MustCompile(`^exit (\d)`).FindStringSubmatch(strings.TrimSpace(comment)); m != nil {
			n, _ := strconv.Atoi(m[1])
			c.exits = []int{n}
		} else if inline {
			c.exits = []int{0, 1}
		}
		out = append(out, c)
		return nil
	}
	fence := regexp.MustCompile("(?s)```([a-z]*)\n(.*?)```")
	for _, m := range fence.FindAllStringSubmatch(md, -1) {
		if m[1] != "sh" {
			continue
		}
		for _, line := range strings.Split(m[2], "\n") {
			if strings.HasPrefix(line, "ldanalyze ") || strings.HasPrefix(line, "go run ./cmd/ldanalyze ") {
				if err := add(line, false); err != nil {
					return nil, err
				}
			}
		}
	}
	prose := fence.ReplaceAllString(md, "")
	for _, m := range regexp.MustCompile("`(ldanalyze [^`]*)`").FindAllStringSubmatch(prose, -1) {
		if err := add(m[1], true); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// shellWords splits a command line as sh does for the README's commands:
// words separated by blanks, '…' and "…" quoting, a backslash escape
// outside single quotes, and a "# comment" (returned) after a blank. Pipes,
// redirections and substitutions are refused: README commands are run
// in-process.
func shellWords(line string) (words []string, comment string, err error) {
	var w strings.Builder
	inWord, quote := false, rune(0)
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else if r == '\\' && quote == '"' && i+1 < len(rs) {
				i++
				w.WriteRune(rs[i])
			} else {
				w.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '\\' && i+1 < len(rs):
			i++
			w.WriteRune(rs[i])
			inWord = true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case r == '#' && !inWord:
			return words, string(rs[i+1:]), nil
		case strings.ContainsRune("|<>;&$`", r):
			return nil, "", fmt.Errorf("%q: pipes, redirections and substitutions are not run", r)
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, "", fmt.Errorf("unclosed %c", quote)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, "", nil
}

// TestREADMECommands runs every ldanalyze command of the README
// in-process, in a scratch directory that sees the repository's testdata,
// in the order the README gives them (ledger show follows ledger add), and
// fails when one exits with another code than the README says (0 unless
// "# exit N"; inline examples may find a failure, 1). It also checks that
// the README links nothing outside the repository.
func TestREADMECommands(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, m := range regexp.MustCompile(`\]\(([^)\s]+)\)`).FindAllStringSubmatch(md, -1) {
		target := m[1]
		if strings.HasPrefix(target, "#") {
			continue
		}
		if strings.Contains(target, "://") || strings.HasPrefix(target, "/") || strings.HasPrefix(filepath.Clean(target), "..") {
			t.Errorf("README links %s, outside the repository (a clone has only the repository)", target)
		} else if _, err := os.Stat(filepath.Join("../..", target)); err != nil {
			t.Errorf("README links %s: %v", target, err)
		}
	}
	cmds, err := readmeCommands(md)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) < 30 || !strings.HasPrefix(cmds[0].line, "go run ./cmd/ldanalyze knee testdata/") {
		t.Fatalf("%d commands, the first %q: want the quick start first and every example", len(cmds), cmds[0].line)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(repo, "testdata"), filepath.Join(dir, "testdata")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, c := range cmds {
		out, errOut, code := runCLI(t, "", c.args...)
		ok := false
		for _, e := range c.exits {
			ok = ok || code == e
		}
		toFile := slices.Contains(c.args, "-o")
		if !ok || (!toFile && out == "") {
			t.Errorf("README command %s\nexit %d (want %v), %d bytes on stdout (want some without -o); stderr:\n%s", c.line, code, c.exits, len(out), errOut)
		}
	}
}

// TestShellWords pins the quoting the README's commands use.
func TestShellWords(t *testing.T) {
	w, comment, err := shellWords(`ldanalyze cost --what-if 'snapshots to Redis=×0.09' --label "a \"b\"" x\ y   # exit 1: why`)
	if err != nil || strings.Join(w, "|") != `ldanalyze|cost|--what-if|snapshots to Redis=×0.09|--label|a "b"|x y` || comment != " exit 1: why" {
		t.Errorf("%q %q %v", w, comment, err)
	}
	if _, _, err := shellWords(`ldanalyze completion fish | source`); err == nil {
		t.Error("a pipe was accepted")
	}
}

// TestREADMEKneeExample: the Knee and Ceiling lines the README shows for
// its first command (knee on testdata/k6/breakpoint.csv.gz) are what the
// tool prints, each piece between "..." elisions verbatim (before, the
// README showed a ceiling of 183.9 req/s the tool no longer printed).
func TestREADMEKneeExample(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "", "knee", td+"breakpoint.csv.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var n int
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "Knee: ") && !strings.HasPrefix(l, "Ceiling: ") {
			continue
		}
		n++
		for _, piece := range strings.Split(l, "...") {
			if piece = strings.TrimSpace(piece); piece != "" && !strings.Contains(out, piece) {
				t.Errorf("README's %q is not in the output:\n%s", piece, out)
			}
		}
	}
	if n != 2 {
		t.Errorf("README has %d Knee/Ceiling example lines, want 2", n)
	}
}
