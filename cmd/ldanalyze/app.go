package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/ldanalyze/ldanalyze/internal/render"
)

// version is the release version, set by release builds with
// -ldflags "-X main.version=v1.2.3"; empty, --version prints the module
// version Go stamped from the checkout.
var version string

// configure makes app behave as a tool should (internal/cliapp): help,
// --version, one-line usage errors, shell completion, the extra --format
// values of check, knee and compare, and terminal tables that fit the
// terminal standard output is (when it is one).
func configure(app *cli.App, e *env) {
	e.stdout = render.Fit(e.stdout, cliapp.TerminalWidth(e.stdout, os.Getenv("COLUMNS")))
	app.Commands = append(app.Commands, cliapp.CompletionCommand())
	cliapp.Setup(app, cliapp.Options{Version: version, Formats: map[string][]render.Format{
		"check":   {render.JUnit, render.GitHub},
		"knee":    {render.GitHub},
		"compare": {render.GitHub},
	}})
}

// flagsAnywhere lets a command's flags follow its files (cliapp.Args).
func flagsAnywhere(cmds []*cli.Command, args []string) []string { return cliapp.Args(cmds, args) }
