package main

import (
	"fmt"

	"github.com/ldanalyze/ldanalyze/internal/outfile"
	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/urfave/cli/v2"
)

func convertCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "convert",
		Usage:     "write k6 samples (CSV, JSON lines, Parquet, Arrow; several files are one run) to Parquet or Arrow IPC, one row per sample",
		UsageText: "ldanalyze convert IN... -o out.parquet|out.arrow [--to parquet|arrow] [--time-unit s|ms|us|ns]",
		Description: "Columns: metric_name (dictionary), timestamp (UTC, in the input's resolution), metric_value (float64),\n" +
			"one dictionary column per tag, extra_tags, metadata, source_file; Parquet is snappy-compressed (pyarrow's default).\n" +
			"Every ldanalyze command reads the result. Prints the rows read and the rows the written file holds; they must be equal.",
		ArgsUsage: "IN...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` (.parquet or .arrow); required"},
			&cli.StringFlag{Name: "to", Usage: "output `FORMAT`: parquet or arrow (default: from the -o extension)"},
			&cli.StringFlag{Name: "time-unit", Usage: "timestamp `UNIT`: s, ms, us or ns (default: the input's resolution)"},
			&cli.IntFlag{Name: "batch-rows", Value: 1 << 15, Usage: "`ROWS` per record batch / row group"},
		},
		Action: e.convertAction,
	}
}

func (e *env) convertAction(c *cli.Context) error {
	// The flags may follow the inputs (cliapp.Args moved them first).
	inputs, out := c.Args().Slice(), c.String("output")
	if len(inputs) == 0 {
		return usageError{fmt.Errorf("convert: want one or more input files (or - for standard input)")}
	}
	if out == "" {
		return usageError{fmt.Errorf("convert: want -o FILE (.parquet or .arrow)")}
	}
	if n := c.Int("batch-rows"); n <= 0 {
		return usageError{fmt.Errorf("convert: --batch-rows %d: want a positive integer", n)}
	}
	var format ingest.Format
	switch to := c.String("to"); to {
	case "":
		f, err := ingest.ColumnarFormatFor(out)
		if err != nil {
			return usageError{fmt.Errorf("%w, or give --to", err)}
		}
		format = f
	case "parquet":
		format = ingest.FormatParquet
	case "arrow":
		format = ingest.FormatArrow
	default:
		return usageError{fmt.Errorf("unknown --to %q: want parquet or arrow", to)}
	}
	switch u := c.String("time-unit"); u {
	case "", "s", "ms", "us", "ns":
	default:
		return usageError{fmt.Errorf("unknown --time-unit %q: want s, ms, us or ns", u)}
	}
	oopt := outfile.Options{Inputs: inputs, Perm: 0o644}
	if err := outfile.Check(out, oopt); err != nil {
		return usageError{err}
	}
	// An output of the command (internal/outfile): written beside the
	// target, which it replaces only when convert succeeds.
	f, err := e.outs.Create(out, oopt)
	if err != nil {
		return err
	}
	res, written, err := pipeline.Convert(inputs, e.stdin, f, ingest.ColumnarOptions{
		Format: format, TimeUnit: c.String("time-unit"), BatchRows: c.Int("batch-rows"),
	})
	reportStats(e.stderr, res.Stats)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "rows in: %d\nrows out: %d\nwrote %s (%s, timestamp unit %s, %d tag columns)\n",
		res.RowsIn, written, out, format, res.TimeUnit, len(res.TagColumns))
	return nil
}
