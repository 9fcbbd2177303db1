package main

import (
	"fmt"
	"io"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/ledger"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/urfave/cli/v2"
)

func ledgerCommand(e *env) *cli.Command {
	ledgerFlag := &cli.StringFlag{Name: "ledger", Aliases: []string{"l"}, Required: true, Usage: "the ledger `FILE` (JSON Lines, one run per line; kept in your repository)"}
	return &cli.Command{
		Name:  "ledger",
		Usage: "one scenario after every change: the ceiling and what saturated each time",
		Subcommands: []*cli.Command{
			{
				Name:  "add",
				Usage: "analyse one run (as `knee` does) and append it to the ledger with a label naming the change",
				Description: "The entry holds the run's start date, the label, the files, the model, the knee, the ceiling, the\n" +
					"error rate, the failed and warned validity checks, and with --prom what saturated at the ceiling.",
				ArgsUsage: "FILE... (k6 CSV or JSON output of one run; several files are one distributed run; - is stdin)",
				Flags: append([]cli.Flag{
					ledgerFlag,
					&cli.StringFlag{Name: "label", Required: true, Usage: "what changed before this run, e.g. \"after pool fix\""},
				}, runFlags(30*time.Second, "window width, as knee's (whole seconds)")...),
				Action: func(c *cli.Context) error { return e.ledgerAdd(c) },
			},
			{
				Name:   "show",
				Usage:  "print the ledger: one row per run with the change in ceiling from the row before",
				Flags:  append([]cli.Flag{ledgerFlag}, outputFlags()...),
				Action: func(c *cli.Context) error { return e.ledgerShow(c) },
			},
		},
	}
}

func (e *env) ledgerAdd(c *cli.Context) error {
	paths := c.Args().Slice()
	if len(paths) == 0 {
		return usageError{fmt.Errorf("ledger add: no input files: give the k6 output of one run, or - for stdin")}
	}
	path, label := c.String("ledger"), c.String("label")
	// Read the ledger first: a damaged ledger (a merge conflict, a
	// hand edit) is reported before the run is analysed, and appending
	// to a file that is not a ledger is refused.
	old, err := pipeline.ReadLedger(path, true)
	if err != nil {
		return err
	}
	// The run is analysed as `knee` analyses it (its default 30 s
	// windows), so that an entry holds exactly the numbers knee prints.
	opt, err := runOptions(c, 30*time.Second)
	if err != nil {
		return err
	}
	opt.Attribution = true
	an, err := e.analyze(paths, opt)
	if err != nil {
		return err
	}
	e.warn(knee.Messages(an.Knee.Warnings)...)
	entry := ledger.NewEntry(label, paths, an.Knee, an.Checks.Checks, an.Attribution)
	for i, o := range old.Entries {
		if o.Date.Equal(entry.Date) && o.Requests == entry.Requests {
			e.warn(fmt.Sprintf("%s:%d already records a run started %s with %d requests (%q); added again",
				path, old.Lines[i], o.Date.Format(time.RFC3339), o.Requests, o.Label))
		}
	}
	if n := len(old.Entries); n > 0 {
		if p := old.Entries[n-1]; p.Model != entry.Model || p.OfferedUnit != entry.OfferedUnit {
			e.warn(fmt.Sprintf("%s:%d is a %s-model run (%s), this one %s-model (%s): a ledger compares runs of one scenario",
				path, old.Lines[n-1], p.Model, p.OfferedUnit, entry.Model, entry.OfferedUnit))
		} else if p.Unit() != entry.Unit() {
			e.warn(fmt.Sprintf("%s:%d has a ceiling in %s, this one in %s: runs of different protocols are not compared", path, old.Lines[n-1], p.Unit(), entry.Unit()))
		}
	}
	if err := ledger.AppendFile(path, entry); err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, present.LedgerAdded(path, ledger.Rows(append(old.Entries, entry))))
	return err
}

func (e *env) ledgerShow(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError{fmt.Errorf("ledger show: unexpected argument %q (the ledger is given with --ledger)", c.Args().First())}
	}
	if _, err := render.ParseFormat(c.String("format")); err != nil {
		return usageError{err}
	}
	l, err := pipeline.ReadLedger(c.String("ledger"), false)
	if err != nil {
		return err
	}
	rows := ledger.Rows(l.Entries)
	return e.emit(c, func(w io.Writer, f render.Format) error {
		if f == render.JSON {
			if rows == nil {
				rows = []ledger.Row{}
			}
			return render.WriteJSON(w, rows)
		}
		return present.LedgerGrid(rows, f == render.CSV).Write(w, f)
	})
}
