package cliapp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestInputsAndCheckOutputsFirst: Inputs lists the arguments and every set
// file-like flag value (the FILE of X=FILE too, a Repeated flag's values
// unsplit), never -o; CheckOutputsFirst refuses an -o that is one of them
// before the action runs.
func TestInputsAndCheckOutputsFirst(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "run.csv")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	ran := false
	cmds := []*cli.Command{{Name: "cost", Flags: []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}},
		&cli.StringFlag{Name: "usage"},
		&cli.StringSliceFlag{Name: "point"},
		&cli.GenericFlag{Name: "run", Value: &Repeated{}},
	}, Action: func(c *cli.Context) error {
		got, ran = Inputs(c), true
		if v := Values(c, "run"); !slices.Equal(v, []string{"a,b.csv", "100=" + in}) {
			t.Errorf("Values = %q", v)
		}
		return nil
	}}}
	CheckOutputsFirst(cmds)
	app := &cli.App{Name: "x", Commands: cmds, Writer: &strings.Builder{}, ErrWriter: &strings.Builder{}}
	out := filepath.Join(dir, "out.txt")
	if err := app.Run([]string{"x", "cost", "-o", out, "--usage", "u.yaml", "--run", "a,b.csv", "--run", "100=" + in, "arg.csv"}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"arg.csv", "u.yaml", "a,b.csv", "100=" + in, in}; !ran || !slices.Equal(got, want) {
		t.Errorf("Inputs = %q, want %q", got, want)
	}
	ran = false
	err := app.Run([]string{"x", "cost", "-o", in, "--run", "100=" + in})
	if err == nil || ran || !strings.Contains(err.Error(), in) {
		t.Errorf("-o an input: ran %v, %v", ran, err)
	}
}

// TestInputsLabelledArguments: an argument LABEL=FILE (compare's
// before=run.csv) or LABEL=A,B (several files of one side) lists each FILE
// as an input, so `compare a=run.csv b=other.csv -o run.csv` is refused
// before anything is read or written.
func TestInputsLabelledArguments(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "run.csv")
	other := filepath.Join(dir, "other.csv")
	for _, p := range []string{in, other} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ran := false
	cmds := []*cli.Command{{Name: "compare", Flags: []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}},
	}, Action: func(c *cli.Context) error { ran = true; return nil }}}
	CheckOutputsFirst(cmds)
	app := &cli.App{Name: "x", Commands: cmds, Writer: &strings.Builder{}, ErrWriter: &strings.Builder{}}
	for _, args := range [][]string{
		{"a=" + in, "b=" + other},
		{"a=" + other, "b=" + other + "," + in},
		{other + "," + in, other},
	} {
		ran = false
		err := app.Run(append([]string{"x", "compare", "-o", in}, args...))
		if err == nil || ran || !strings.Contains(err.Error(), "input") {
			t.Errorf("compare %q -o %s: ran %v, err %v; want refused before running", args, in, ran, err)
		}
	}
	ran = false
	if err := app.Run([]string{"x", "compare", "-o", filepath.Join(dir, "out.txt"), "a=" + in, "b=" + other}); err != nil || !ran {
		t.Errorf("compare to a new file: ran %v, err %v", ran, err)
	}
}
