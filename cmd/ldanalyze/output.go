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

// output opens the destination chosen by -o (standard output by default)
// and parses --format. The caller must call the returned close function
// and report its error.
//
// A -o file goes through the command's output set (env.outs, see
// internal/outfile): an output that is one of the command's inputs is
// refused at once, before any analysis; the file is created at the first
// write (after the analysis) as a temporary file beside the target, which
// replaces the target only when the command succeeds (runOutputs), so a
// failed command leaves the previous file as it was.
func (e *env) output(c *cli.Context) (io.Writer, render.Format, func() error, error) {
	f, err := render.ParseFormat(c.String("format"))
	if err != nil {
		return nil, "", nil, usageError{err}
	}
	path := c.String("output")
	if path == "" || path == "-" {
		return e.stdout, f, func() error { return nil }, nil
	}
	opt := outfile.Options{Inputs: cliapp.Inputs(c)}
	if err := outfile.Check(path, opt); err != nil {
		return nil, "", nil, usageError{err}
	}
	out := e.outs.Lazy(path, opt)
	return out, f, out.Close, nil
}

// usageError marks a bad flag or argument (exit code 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// emit opens the output chosen by -o and --format (or the format given,
// already parsed), runs write on it and closes it, reporting the first
// error. Call it once the analysis succeeded, so that a failed analysis
// leaves no output file.
func (e *env) emit(c *cli.Context, write func(w io.Writer, f render.Format) error, parsed ...render.Format) error {
	w, f, closeOut, err := e.output(c)
	if err != nil {
		return err
	}
	if len(parsed) > 0 {
		f = parsed[0]
	}
	if err := write(w, f); err != nil {
		closeOut()
		return err
	}
	return closeOut()
}
