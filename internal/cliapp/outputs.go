package cliapp

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ldanalyze/ldanalyze/internal/outfile"
)

// Repeated is a flag value (cli.GenericFlag) that may be given several
// times; unlike cli.StringSliceFlag it does not split on commas (item
// names and paths may hold them).
type Repeated []string

// Set appends one value.
func (r *Repeated) Set(s string) error { *r = append(*r, s); return nil }

// String joins the values with "; ".
func (r *Repeated) String() string { return strings.Join(*r, "; ") }

// Values are the values of the Repeated flag name of c, nil when it has
// none (or name is not a Repeated flag).
func Values(c *cli.Context, name string) []string {
	if r, ok := c.Generic(name).(*Repeated); ok {
		return *r
	}
	return nil
}

// Inputs lists the files the command of c may read, for the check that no
// output replaces one (outfile.Options.Inputs): its arguments and the
// values of its flags that were set (the FILE of an X=FILE value too), but
// -o and --html. An argument LABEL=FILE (compare's before=run.csv) lists
// FILE too, and each file of A,B or LABEL=A,B. Values that are not files are
// ignored by the check.
func Inputs(c *cli.Context) []string {
	var in []string
	for _, a := range c.Args().Slice() {
		in = append(in, a)
		file := a
		if _, f, ok := strings.Cut(a, "="); ok {
			file = f
			in = append(in, file)
		}
		if strings.Contains(file, ",") {
			in = append(in, List([]string{file})...)
		}
	}
	add := func(v string) {
		in = append(in, v)
		if _, file, ok := strings.Cut(v, "="); ok {
			in = append(in, file)
		}
	}
	for _, fl := range c.Command.Flags {
		name := fl.Names()[0]
		if name == "output" || name == "html" || !c.IsSet(name) {
			continue
		}
		switch fl := fl.(type) {
		case *cli.StringFlag:
			add(c.String(name))
		case *cli.StringSliceFlag:
			for _, v := range c.StringSlice(name) {
				add(v)
			}
		case *cli.GenericFlag:
			if r, ok := fl.Value.(*Repeated); ok {
				for _, v := range *r {
					add(v)
				}
			}
		}
	}
	return in
}

// CheckOutputsFirst makes every command of cmds (and their subcommands)
// that has an --output flag and no Before refuse, before any analysis, an
// output that outfile.Check refuses: one of its inputs (Inputs), a
// directory, a symbolic link.
func CheckOutputsFirst(cmds []*cli.Command) {
	for _, c := range cmds {
		CheckOutputsFirst(c.Subcommands)
		if !hasFlag(c.Flags, "output") || c.Before != nil {
			continue
		}
		c.Before = func(c *cli.Context) error {
			if p := c.String("output"); p != "" && p != "-" {
				return outfile.Check(p, outfile.Options{Inputs: Inputs(c)})
			}
			return nil
		}
	}
}
