package cliapp

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// Args lets a command's flags follow its files, as users type them
// (`ldanalyze knee run.csv --window 10s`): urfave/cli stops parsing flags
// at the first positional argument, so the flags of the (sub)command named
// in args (args[0] is the program) are moved before its positional
// arguments, which follow a "--". Commands that parse their own arguments
// (SkipFlagParsing) are left alone.
func Args(cmds []*cli.Command, args []string) []string {
	if len(args) < 2 {
		return args
	}
	find := func(cs []*cli.Command, name string) *cli.Command {
		for _, c := range cs {
			if c.HasName(name) {
				return c
			}
		}
		return nil
	}
	i := 1
	cmd := find(cmds, args[i])
	for cmd != nil && len(cmd.Subcommands) > 0 && i+1 < len(args) {
		sub := find(cmd.Subcommands, args[i+1])
		if sub == nil {
			break
		}
		cmd, i = sub, i+1
	}
	if cmd == nil || cmd.SkipFlagParsing {
		return args
	}
	out := append([]string{}, args[:i+1]...)
	return append(out, FlagsFirst(cmd.Flags, args[i+1:])...)
}

// FlagsFirst moves the flags of args (with their values) before the
// positional arguments, which follow a "--". Everything after a "--" in
// args stays positional.
func FlagsFirst(flags []cli.Flag, args []string) []string {
	takesValue := map[string]bool{}
	for _, f := range flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var fl, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			fl = append(fl, a)
			if name := strings.TrimLeft(a, "-"); !strings.Contains(name, "=") && takesValue[name] {
				if i+1 == len(args) {
					// No value: the flags alone, so that the parser
					// says "flag needs an argument" (rather than take
					// the "--" for the value).
					return fl
				}
				fl = append(fl, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	return append(append(fl, "--"), pos...)
}
