// Package cliapp makes ldanalyze's command-line application (urfave/cli
// v2) behave as users of a command-line tool expect: flags may follow the
// files, a bad flag is one line on standard error naming it and --help
// (nothing on standard output, exit 2), `help` and `--version` work, shell
// completion for bash, zsh and fish, and tables fit the terminal. The
// commands themselves live in cmd/ldanalyze.
package cliapp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/ldanalyze/ldanalyze/internal/render"
)

// Options configure Setup.
type Options struct {
	// Formats lists, by command name ("check", "ledger show"), the
	// --format values it accepts beyond table, markdown, json and csv.
	Formats map[string][]render.Format
	// Version, when not empty, replaces the module version --version
	// prints (see Version).
	Version string
}

// Setup configures app: its version (Version), the help command, one-line
// usage errors for every command, an error for an unknown command or
// subcommand, the --format values of each command, and the hidden
// `__complete` command the completion scripts call (add the `completion`
// command with CompletionCommand).
func Setup(app *cli.App, opt Options) {
	app.Version = Version(opt.Version)
	app.HideHelpCommand = false
	app.OnUsageError = usageError
	app.Action = func(c *cli.Context) error {
		if c.Args().Present() {
			return fmt.Errorf("unknown command %q: see ldanalyze help", c.Args().First())
		}
		// No command is a usage error: the help goes to standard error,
		// standard output stays empty, exit 2.
		tmpl := c.App.CustomAppHelpTemplate
		if tmpl == "" {
			tmpl = cli.AppHelpTemplate
		}
		cli.HelpPrinter(c.App.ErrWriter, tmpl, c.App)
		return errors.New("no command given (see ldanalyze --help)")
	}
	app.Commands = append(app.Commands, &cli.Command{
		Name: "__complete", Hidden: true, SkipFlagParsing: true,
		Action: func(c *cli.Context) error { return complete(c.App.Writer, app.Commands, opt, c.Args().Slice()) },
	})
	var walk func(path string, cs []*cli.Command)
	walk = func(path string, cs []*cli.Command) {
		for _, c := range cs {
			name := strings.TrimSpace(path + " " + c.Name)
			c.OnUsageError = usageError
			if len(c.Subcommands) > 0 && c.Action == nil {
				c.Action = func(cc *cli.Context) error {
					if cc.Args().Present() {
						return fmt.Errorf("%s: unknown subcommand %q: see ldanalyze %s --help", name, cc.Args().First(), name)
					}
					return cli.ShowSubcommandHelp(cc)
				}
			}
			var allowed []render.Format
			if hasFlag(c.Flags, "format") {
				allowed = formats(opt, name)
				setFormatUsage(c.Flags, allowed)
			}
			required := requiredFlags(c.Flags)
			htmlFlag := hasFlag(c.Flags, "html")
			if before := c.Before; len(allowed) > 0 || len(required) > 0 || htmlFlag {
				c.Before = func(cc *cli.Context) error {
					for _, r := range required {
						if !cc.IsSet(r) {
							return fmt.Errorf("%s: required flag %q not set (see ldanalyze %s --help)", name, r, name)
						}
					}
					if err := formatFromOutput(cc, name, allowed, htmlFlag); err != nil {
						return err
					}
					if f, err := render.ParseFormat(cc.String("format")); len(allowed) > 0 && (err != nil || !slices.Contains(allowed, f)) {
						return fmt.Errorf("%s: unknown --format %q: want %s (see ldanalyze %s --help)", name, cc.String("format"), formatList(allowed), name)
					}
					if before != nil {
						return before(cc)
					}
					return nil
				}
			}
			walk(name, c.Subcommands)
		}
	}
	walk("", app.Commands)
}

// formatFromOutput chooses --format from the -o file's extension when
// --format is not given: .json, .csv, .md or .markdown, .xml (JUnit),
// when the command writes that format (a file named out.json holding a
// terminal table helps no one), and refuses such a name when it does not
// (knee -o out.xml: knee writes no JUnit). A command with --html (report) refuses
// an -o file named .html: -o is its markdown, the page is --html's.
func formatFromOutput(cc *cli.Context, name string, allowed []render.Format, htmlFlag bool) error {
	out := cc.String("output")
	ext := strings.ToLower(filepath.Ext(out))
	if htmlFlag && (ext == ".html" || ext == ".htm") {
		return fmt.Errorf("%s: -o %s: -o writes the markdown report; write the HTML page with --html %s (see ldanalyze %s --help)", name, out, out, name)
	}
	if len(allowed) == 0 || cc.IsSet("format") {
		return nil
	}
	name0 := strings.TrimPrefix(ext, ".")
	if ext == ".xml" {
		name0 = string(render.JUnit)
	}
	f, err := render.ParseFormat(name0)
	if err != nil || f == render.Table {
		return nil
	}
	if !slices.Contains(allowed, f) {
		// out.xml holding a terminal table would be worse than an error.
		return fmt.Errorf("%s: -o %s: a %s file is %s, which %s does not write: give --format (%s) or another name (see ldanalyze %s --help)", name, out, ext, f, name, formatList(allowed), name)
	}
	return cc.Set("format", string(f))
}

// usageError is a bad flag or argument as one line: the command, what was
// wrong, and where to read the flags.
func usageError(c *cli.Context, err error, _ bool) error {
	name := CommandName(c)
	if name == "" {
		return fmt.Errorf("%v (see ldanalyze --help)", err)
	}
	return fmt.Errorf("%s: %v (see ldanalyze %s --help)", name, err, name)
}

// CommandName is the path of c's command under ldanalyze, e.g. "ledger
// add"; "" for ldanalyze itself.
func CommandName(c *cli.Context) string {
	var names []string
	for _, x := range c.Lineage() {
		if x.Command != nil && x.Command.Name != "" && x.Command.Name != x.App.Name {
			names = append([]string{x.Command.Name}, names...)
		}
	}
	return strings.Join(names, " ")
}

// formats are the --format values of the command named name.
func formats(opt Options, name string) []render.Format {
	return append([]render.Format{render.Table, render.Markdown, render.JSON, render.CSV}, opt.Formats[name]...)
}

func formatList(fs []render.Format) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f)
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// setFormatUsage names the command's own formats in the help of its
// --format flag.
func setFormatUsage(flags []cli.Flag, fs []render.Format) {
	for _, f := range flags {
		if sf, ok := f.(*cli.StringFlag); ok && sf.Name == "format" {
			sf.Usage = "output `FORMAT`: " + formatList(fs)
		}
	}
}

// requiredFlags returns the names of the flags marked Required and
// unmarks them: urfave/cli prints the whole help on standard output
// before its error, Setup's check is one line on standard error.
func requiredFlags(flags []cli.Flag) []string {
	var names []string
	for _, f := range flags {
		if r, ok := f.(cli.RequiredFlag); !ok || !r.IsRequired() {
			continue
		}
		names = append(names, f.Names()[0])
		switch f := f.(type) {
		case *cli.StringFlag:
			f.Required = false
		case *cli.StringSliceFlag:
			f.Required = false
		case *cli.IntFlag:
			f.Required = false
		case *cli.Float64Flag:
			f.Required = false
		case *cli.DurationFlag:
			f.Required = false
		case *cli.GenericFlag:
			f.Required = false
		case *cli.BoolFlag:
			f.Required = false
		}
	}
	return names
}

func hasFlag(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}

// TerminalWidth is the width, in columns, tables written to w should fit:
// columns (the value of $COLUMNS, if a number) or the terminal's width
// when w is a terminal, 0 (any width) when it is a file or a pipe, so that
// piped output does not depend on the terminal it was produced in.
func TerminalWidth(w io.Writer, columns string) int {
	f, ok := w.(*os.File)
	if !ok || !isatty.IsTerminal(f.Fd()) {
		return 0
	}
	if n, err := strconv.Atoi(columns); err == nil && n > 0 {
		return n
	}
	if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
		return n
	}
	return 0
}
