package main

import (
	"io"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/ldanalyze/ldanalyze/internal/outfile"
	"github.com/ldanalyze/ldanalyze/internal/render"
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
