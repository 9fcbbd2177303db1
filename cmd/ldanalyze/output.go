package main

import (
	"fmt"
	"io"
	"os"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/urfave/cli/v2"
)

// outputFlags are --format and -o, shared by every command that renders.
func outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "table", Usage: "output `FORMAT`: table, markdown, json or csv"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of standard output"},
	}
}

// output opens the destination chosen by -o (standard output by default)
// and parses --format. The caller must call the returned close function and
// report its error.
func (e *env) output(c *cli.Context) (io.Writer, render.Format, func() error, error) {
	f, err := render.ParseFormat(c.String("format"))
	if err != nil {
		return nil, "", nil, usageError{err}
	}
	path := c.String("output")
	if path == "" || path == "-" {
		return e.stdout, f, func() error { return nil }, nil
	}
	file, err := os.Create(path)
	if err != nil {
		return nil, "", nil, err
	}
	return file, f, func() error {
		if err := file.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return nil
	}, nil
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
