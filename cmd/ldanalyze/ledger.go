package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/ledger"
	"github.com/ldanalyze/ldanalyze/pkg/saturation"
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
				Flags: []cli.Flag{
					ledgerFlag,
					&cli.StringFlag{Name: "label", Required: true, Usage: "what changed before this run, e.g. \"after pool fix\""},
					&cli.StringFlag{Name: "prom", Usage: "`DIR` written by `ldanalyze prom pull`: record what saturated at the ceiling"},
					&cli.Float64Flag{Name: "link-mbps", Usage: "network link speed for --prom, megabits per second (0: network not judged)"},
					&cli.StringFlag{Name: "slo", Usage: "latency objective in k6 threshold syntax, e.g. 'p95<500ms': record the load up to which it held"},
					&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Value: "http_req_duration", Usage: "the Trend metric whose latency is analysed"},
					&cli.DurationFlag{Name: "ramp-step", Value: 10 * time.Second, Usage: "width of the load levels a continuous ramp is cut into"},
				},
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
	path := c.String("ledger")
	// Read the ledger first: a damaged ledger (a merge conflict, a
	// hand edit) is reported before the run is analysed, and appending
	// to a file that is not a ledger is refused.
	old, err := readLedger(path, true)
	if err != nil {
		return err
	}
	args := []string{"--metric", c.String("metric"), "--ramp-step", c.Duration("ramp-step").String()}
	for _, f := range []string{"prom", "slo"} {
		if v := c.String(f); v != "" {
			args = append(args, "--"+f, v)
		}
	}
	if v := c.Float64("link-mbps"); v != 0 {
		args = append(args, "--link-mbps", strconv.FormatFloat(v, 'g', -1, 64))
	}
	res, cs, attr, err := e.analyzeForLedger(c.Context, append(append(args, "--"), paths...))
	if err != nil {
		return err
	}
	entry := ledger.NewEntry(c.String("label"), paths, res, cs, attr)
	for i, o := range old.Entries {
		if o.Date.Equal(entry.Date) && o.Requests == entry.Requests {
			fmt.Fprintf(e.stderr, "ldanalyze: warning: %s:%d already records a run started %s with %d requests (%q); added again\n",
				path, old.Lines[i], o.Date.Format(time.RFC3339), o.Requests, o.Label)
		}
	}
	if n := len(old.Entries); n > 0 {
		if p := old.Entries[n-1]; p.Model != entry.Model || p.OfferedUnit != entry.OfferedUnit {
			fmt.Fprintf(e.stderr, "ldanalyze: warning: %s:%d is a %s-model run (%s), this one %s-model (%s): a ledger compares runs of one scenario\n",
				path, old.Lines[n-1], p.Model, p.OfferedUnit, entry.Model, entry.OfferedUnit)
		}
	}
	if err := ledger.AppendFile(path, entry); err != nil {
		return err
	}
	rows := ledger.Rows(append(old.Entries, entry))
	r := rows[len(rows)-1]
	msg := fmt.Sprintf("%s: entry %d, %q: ceiling %s req/s", path, r.N, r.Label, ceilingText(r.Entry))
	if r.N > 1 {
		msg += " (" + changeText(r.CeilingChangeRatio) + " from the entry before)"
	}
	_, err = fmt.Fprintln(e.stdout, msg)
	return err
}

// analyzeForLedger runs `knee --format json` on args in-process and reads
// back the knee result, the validity checks and the Prometheus attribution,
// so that an entry holds exactly the numbers `knee` prints for the run.
func (e *env) analyzeForLedger(ctx context.Context, args []string) (*knee.Result, []checks.Check, *saturation.Attribution, error) {
	var out bytes.Buffer
	sub := &env{stdin: e.stdin, stdout: &out, stderr: e.stderr, outs: e.outs}
	app := &cli.App{
		Name: "ldanalyze", Writer: &out, ErrWriter: e.stderr, Reader: e.stdin,
		ExitErrHandler: func(*cli.Context, error) {}, HideHelpCommand: true,
		Commands: []*cli.Command{kneeCommand(sub)},
	}
	if err := app.RunContext(ctx, append([]string{"ldanalyze", "knee", "--format", "json"}, args...)); err != nil {
		return nil, nil, nil, err
	}
	var doc struct {
		*knee.Result
		Checks []struct {
			ID     string        `json:"id"`
			Status checks.Status `json:"status"`
		} `json:"checks"`
		*saturation.Attribution
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.Result == nil {
		return nil, nil, nil, fmt.Errorf("ledger add: reading the knee analysis back: %v", err)
	}
	cs := make([]checks.Check, len(doc.Checks))
	for i, c := range doc.Checks {
		cs[i] = checks.Check{ID: c.ID, Status: c.Status}
	}
	return doc.Result, cs, doc.Attribution, nil
}

// readLedger reads the ledger at path. A line that is not an entry is an
// input error naming the file, line and column (the first five are
// listed). With missingOK a missing file is an empty ledger.
func readLedger(path string, missingOK bool) (*ledger.Ledger, error) {
	l, err := ledger.ReadFile(path)
	if err != nil {
		if missingOK && errors.Is(err, fs.ErrNotExist) {
			return &ledger.Ledger{}, nil
		}
		return nil, err
	}
	if n := len(l.Errors); n > 0 {
		msgs := make([]string, 0, 5)
		for _, se := range l.Errors[:min(n, 5)] {
			msgs = append(msgs, se.Error())
		}
		more := ""
		if n > 5 {
			more = fmt.Sprintf("\n  (%d more)", n-5)
		}
		return nil, usageError{fmt.Errorf("%d line(s) of the ledger are not entries; fix them first:\n  %s%s", n, strings.Join(msgs, "\n  "), more)}
	}
	return l, nil
}

func (e *env) ledgerShow(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError{fmt.Errorf("ledger show: unexpected argument %q (the ledger is given with --ledger)", c.Args().First())}
	}
	if _, err := render.ParseFormat(c.String("format")); err != nil {
		return usageError{err}
	}
	l, err := readLedger(c.String("ledger"), false)
	if err != nil {
		return err
	}
	w, format, closeOut, err := e.output(c)
	if err != nil {
		return err
	}
	rows := ledger.Rows(l.Entries)
	if format == render.JSON {
		if rows == nil {
			rows = []ledger.Row{}
		}
		err = render.WriteJSON(w, rows)
	} else {
		err = ledgerGrid(rows, format == render.CSV).Write(w, format)
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return err
}

// ledgerGrid is the ledger table: one row per run. machine gives the CSV
// form, full-precision numbers with units in the column names.
func ledgerGrid(rows []ledger.Row, machine bool) *render.Grid {
	if machine {
		g := &render.Grid{Header: []string{"n", "date", "label", "files", "model", "offered_unit", "knee", "knee_p95_ms",
			"ceiling_rps", "ceiling_low_rps", "ceiling_high_rps", "ceiling_reached", "ceiling_change_ratio", "slo", "slo_capacity",
			"requests", "error_rate", "saturated", "busiest", "failed_checks", "warned_checks"}}
		for _, r := range rows {
			var sat, busiest []string
			if s := r.Saturation; s != nil {
				for _, x := range s.Saturated {
					sat = append(sat, x.Name+"="+present.CSVNum(float64(x.Utilisation)))
				}
				if s.Busiest != nil {
					busiest = append(busiest, s.Busiest.Name+"="+present.CSVNum(float64(s.Busiest.Utilisation)))
				}
			}
			slo := ""
			if r.SLO != "" {
				slo = present.CSVNum(float64(r.SLOCapacity))
			}
			g.Rows = append(g.Rows, []string{strconv.Itoa(r.N), r.Date.Format(time.RFC3339), r.Label, strings.Join(r.Files, ";"),
				r.Model, r.OfferedUnit, present.CSVNum(float64(r.Knee)), present.CSVNum(float64(r.KneeP95MS)),
				present.CSVNum(float64(r.CeilingRPS)), present.CSVNum(float64(r.CeilingLowRPS)), present.CSVNum(float64(r.CeilingHighRPS)),
				strconv.FormatBool(r.CeilingReached), present.CSVNum(float64(r.CeilingChangeRatio)), r.SLO, slo,
				strconv.FormatUint(r.Requests, 10), present.CSVNum(float64(r.ErrorRate)), strings.Join(sat, ";"), strings.Join(busiest, ";"),
				strings.Join(r.FailedChecks, ";"), strings.Join(r.WarnedChecks, ";")})
		}
		return g
	}
	withSLO := false
	for _, r := range rows {
		withSLO = withSLO || r.SLO != ""
	}
	g := &render.Grid{Header: []string{"#", "date (UTC)", "label", "knee", "p95 at knee ms", "ceiling req/s", "vs previous"}}
	if withSLO {
		g.Header = append(g.Header, "SLO capacity")
	}
	g.Header = append(g.Header, "errors", "what saturated", "validity")
	for _, r := range rows {
		row := []string{strconv.Itoa(r.N), r.Date.Format("2006-01-02 15:04"), r.Label, offeredText(r.Knee, r.OfferedUnit),
			present.Num(float64(r.KneeP95MS)), ceilingText(r.Entry), changeText(r.CeilingChangeRatio)}
		if r.N == 1 {
			row[6] = ""
		}
		if withSLO {
			s := ""
			if r.SLO != "" {
				s = r.SLO + ": " + offeredText(r.SLOCapacity, r.OfferedUnit)
			}
			row = append(row, s)
		}
		row = append(row, present.Pct(float64(r.ErrorRate)), saturationText(r.Saturation), validityText(r.Entry))
		g.Rows = append(g.Rows, row)
	}
	return g
}

// offeredText is an offered load with its unit, "-" when missing.
func offeredText(v jsonnum.Float, unit string) string {
	if !v.Valid() {
		return "-"
	}
	return present.Num(float64(v)) + " " + unit
}

// ceilingText is the ceiling, "≥ x" when it was not reached.
func ceilingText(e ledger.Entry) string {
	s := present.Num(float64(e.CeilingRPS))
	if !e.CeilingReached && e.CeilingRPS.Valid() {
		s = "≥ " + s
	}
	return s
}

// changeText is a signed percentage, "-" when unknown.
func changeText(r jsonnum.Float) string {
	if !r.Valid() {
		return "-"
	}
	v := 100 * float64(r)
	if math.Abs(v) < 0.05 {
		return "0.0%"
	}
	return fmt.Sprintf("%+.1f%%", v)
}

// saturationText names the saturated resources, or the busiest one when
// nothing reached the threshold; "-" without Prometheus data.
func saturationText(s *ledger.Saturation) string {
	if s == nil {
		return "-"
	}
	var parts []string
	for _, r := range s.Saturated {
		parts = append(parts, r.Name+" "+present.Pct(float64(r.Utilisation)))
	}
	if len(parts) > 0 {
		return strings.Join(parts, "; ")
	}
	out := "nothing ≥ " + strconv.FormatFloat(100*s.ThresholdRatio, 'f', -1, 64) + "%"
	if s.Busiest != nil {
		out += " (busiest: " + s.Busiest.Name + " " + present.Pct(float64(s.Busiest.Utilisation)) + ")"
	}
	return out
}

// validityText lists the failed and warned checks, "ok" when none.
func validityText(e ledger.Entry) string {
	var parts []string
	if len(e.FailedChecks) > 0 {
		parts = append(parts, "fail: "+strings.Join(e.FailedChecks, ", "))
	}
	if len(e.WarnedChecks) > 0 {
		parts = append(parts, "warn: "+strings.Join(e.WarnedChecks, ", "))
	}
	if len(parts) == 0 {
		return "ok"
	}
	return strings.Join(parts, "; ")
}
