package main

import (
	"io"
	"os"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/ldanalyze/ldanalyze/internal/outfile"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/suite"
	"github.com/urfave/cli/v2"
)

// outputFlags are --format and -o, shared by every command that renders.
func outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "table", Usage: "output `FORMAT`: table, markdown, json or csv"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of standard output: created with its directory, or replaced whole once the command succeeds (never an input file or a symbolic link to a file)"},
	}
}

// usageError marks a bad flag or argument (exit code 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// emit writes the command's output with write: to standard output, or
// to the -o file, in the --format given (or the format given, already
// parsed). Call it once the analysis succeeded, so that a failed analysis
// leaves no output file.
//
// A -o file goes through the command's output set (env.outs, see
// internal/outfile): an output that is one of the command's inputs is
// refused at once, before any analysis (cliapp.CheckOutputsFirst); the
// file is written as a temporary file beside the target, which replaces
// the target only when the command succeeds (runOutputs), so a failed
// command leaves the previous file as it was.
func (e *env) emit(c *cli.Context, write func(w io.Writer, f render.Format) error, parsed ...render.Format) error {
	f, err := render.ParseFormat(c.String("format"))
	if err != nil {
		return usageError{err}
	}
	if len(parsed) > 0 {
		f = parsed[0]
	}
	path := c.String("output")
	if path == "" || path == "-" {
		return write(e.stdout, f)
	}
	return e.outs.WriteFile(path, outfile.Options{Inputs: cliapp.Inputs(c)}, func(w io.Writer) error { return write(w, f) })
}

// checkOutputNotInDirs refuses, before anything is read, an -o that is one
// of the runs or summaries (suite.Discover) held by the directories among
// args: Inputs lists the directories themselves, not the files they hold,
// so without it `suite DIR -o DIR/run.csv` replaced a run with the table.
// Other files in the directories (an earlier table) may be replaced.
func checkOutputNotInDirs(c *cli.Context, args []string) error {
	path := c.String("output")
	if path == "" || path == "-" {
		return nil
	}
	var dirs []string
	for _, a := range args {
		if fi, err := os.Stat(a); err == nil && fi.IsDir() {
			dirs = append(dirs, a)
		}
	}
	if len(dirs) == 0 {
		return nil
	}
	ins, _, err := suite.Discover(dirs)
	if err != nil {
		return nil // the command reports it when it reads them
	}
	var files []string
	for _, in := range ins {
		files = append(files, in.Path)
		if in.Summary != "" {
			files = append(files, in.Summary)
		}
	}
	return outfile.Check(path, outfile.Options{Inputs: files})
}
