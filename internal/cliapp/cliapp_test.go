package cliapp

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/scale"
	"github.com/urfave/cli/v2"
)

// TestArgs: the flags of the command named, with their values, move
// before its files; "--" ends the flags; a value flag given last without
// its value stays last so that the parser reports it.
func TestArgs(t *testing.T) {
	cmds := []*cli.Command{{Name: "queue", Subcommands: []*cli.Command{{Name: "little", Flags: []cli.Flag{
		&cli.StringFlag{Name: "rate"}, &cli.BoolFlag{Name: "quiet"},
	}}}}}
	for _, c := range []struct{ in, want string }{
		{"ldanalyze queue little x --rate 5 -- -y", "ldanalyze queue little --rate 5 -- x -y"},
		{"ldanalyze queue little x --quiet y", "ldanalyze queue little --quiet -- x y"},
		{"ldanalyze queue little x --rate", "ldanalyze queue little --rate"},
		{"ldanalyze other x --rate 5", "ldanalyze other x --rate 5"},
	} {
		if got := strings.Join(Args(cmds, strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("Args(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestBashCompletion sources the bash script and completes words with a
// stand-in ldanalyze that answers __complete as the real one does: the
// script passes the words after the program and keeps the candidates
// that start with the current word.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "ldanalyze")
	// The stand-in answers "__complete kn" with two candidates, and
	// nothing for other words.
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n[ \"$1 $2\" = \"__complete kn\" ] && printf 'knee\\nkneecap\\n'\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := scripts.ReadFile("completion/ldanalyze.bash")
	if err != nil {
		t.Fatal(err)
	}
	sh := string(script) + `
COMP_WORDS=(` + fake + ` kn); COMP_CWORD=1
_ldanalyze
printf '%s\n' "${COMPREPLY[@]}"
`
	out, err := exec.Command(bash, "-c", sh).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := string(out); got != "knee\nkneecap\n" {
		t.Errorf("COMPREPLY = %q, want knee and kneecap", got)
	}
}

// TestQuantity: values in the wanted unit or bare numbers are taken in the
// base unit (350ms = 0.35 s, 1.5k/s = 1500/s); another unit is refused
// with the flag named (exact messages).
func TestQuantity(t *testing.T) {
	for _, c := range []struct {
		s    string
		want scale.Unit
		v    float64
		err  string
	}{
		{"350ms", scale.Seconds, 0.35, ""},
		{"2", scale.Seconds, 2, ""},
		{"1.5k/s", scale.PerSecond, 1500, ""},
		{"12", scale.Count, 12, ""},
		{"2.8MB", scale.Seconds, 0, `--x 2.8MB: want a duration, got a value in "B"`},
		{"3s", scale.Count, 0, `--x 3s: want a number, got a value in "s"`},
		{"5ms", scale.PerSecond, 0, `--x 5ms: want a rate per second, got a value in "s"`},
	} {
		v, err := Quantity("x", c.s, c.want)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: %v, want %q", c.s, err, c.err)
			}
			continue
		}
		if err != nil || math.Abs(v-c.v) > 1e-12 {
			t.Errorf("%q: %v, %v; want %v", c.s, v, err, c.v)
		}
	}
}
