// Command k6sim writes the k6 output of a simulated run and prints its truth
// on stderr, for producing test files by hand:
//
//	k6sim -preset open-ramp-3m -out run.csv.gz
//	k6sim -config run.yaml -out run.json -seed 7
//	k6sim -preset closed-ramp -print-config > run.yaml   # a config to edit
//	k6sim -list
//
// The config is sim.Config as YAML (k6's option names: executor,
// startRate, stages, preAllocatedVUs, …; durations as "30s"; service times
// as {kind: uniform, min: 2, max: 6}). The output format follows the file
// name as k6's does (.csv or .json, gzip when it ends in .gz) unless
// -format is given; "-" is stdout. Exit status: 0, or 2 for a usage or
// config error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ldanalyze/ldanalyze/internal/sim"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "k6sim:", err)
		}
		os.Exit(2)
	}
}

// options are the command's flags.
type options struct {
	config, preset, out, format, timeFormat string
	seed                                    uint64
	seedSet, list, printConfig, truthJSON   bool
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("k6sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.config, "config", "", "YAML `file` of a sim.Config")
	fs.StringVar(&o.preset, "preset", "", "a preset `name` (see -list)")
	fs.StringVar(&o.out, "out", "-", "output `file` (.csv, .json, .gz for gzip; - for stdout)")
	fs.StringVar(&o.format, "format", "", "csv or json (default: from -out's name, else csv)")
	fs.StringVar(&o.timeFormat, "time-format", "unix", "CSV timestamps: unix, unix_milli, unix_micro, unix_nano, rfc3339, rfc3339_nano")
	fs.Uint64Var(&o.seed, "seed", 0, "override the config's seed")
	fs.BoolVar(&o.list, "list", false, "list the presets and exit")
	fs.BoolVar(&o.printConfig, "print-config", false, "print the config as YAML on stdout and exit")
	fs.BoolVar(&o.truthJSON, "truth-json", false, "print the truth as JSON (per-second figures included) instead of text")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	fs.Visit(func(f *flag.Flag) { o.seedSet = o.seedSet || f.Name == "seed" })
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return o, nil
}

// run is the command; it returns the error that maps to exit status 2.
func run(_ context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parse(args, stderr)
	if err != nil {
		return err
	}
	if o.list {
		for _, p := range sim.Presets() {
			fmt.Fprintf(stdout, "%-22s %s\n", p.Name, p.About)
		}
		return nil
	}
	cfg, err := loadConfig(o)
	if err != nil {
		return err
	}
	if o.printConfig {
		b, err := yaml.Marshal(cfg)
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	format, gz := outputFormat(o)
	w := stdout
	var f *os.File
	if o.out != "-" && o.out != "" {
		if f, err = os.Create(o.out); err != nil {
			return err
		}
		w = f
	}
	var tr sim.Truth
	switch format {
	case "csv":
		tr, err = sim.WriteCSV(w, cfg, sim.CSVOptions{TimeFormat: o.timeFormat, Gzip: gz})
	case "json":
		tr, err = sim.WriteJSON(w, cfg, sim.JSONOptions{Gzip: gz})
	default:
		err = fmt.Errorf("unknown format %q (csv or json)", format)
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	if o.truthJSON {
		return writeTruthJSON(stderr, tr)
	}
	return writeTruth(stderr, tr)
}

// loadConfig reads -config or -preset and applies -seed.
func loadConfig(o options) (sim.Config, error) {
	var cfg sim.Config
	switch {
	case o.config != "" && o.preset != "":
		return cfg, errors.New("give -config or -preset, not both")
	case o.preset != "":
		c, err := sim.PresetConfig(o.preset)
		if err != nil {
			return cfg, err
		}
		cfg = c
	case o.config != "":
		b, err := os.ReadFile(o.config)
		if err != nil {
			return cfg, err
		}
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil {
			return cfg, fmt.Errorf("%s: %w", o.config, err)
		}
	default:
		return cfg, errors.New("give -config FILE or -preset NAME (-list shows the presets)")
	}
	if o.seedSet {
		cfg.Seed = o.seed
	}
	return cfg, nil
}

// outputFormat returns the format and compression -out and -format ask for.
func outputFormat(o options) (format string, gz bool) {
	name := o.out
	gz = strings.HasSuffix(name, ".gz")
	name = strings.TrimSuffix(name, ".gz")
	format = o.format
	if format == "" {
		format = "csv"
		if strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".ndjson") {
			format = "json"
		}
	}
	return format, gz
}
