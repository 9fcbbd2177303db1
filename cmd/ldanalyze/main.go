// Command ldanalyze turns the files a load test leaves behind (k6 CSV/JSON
// outputs and summaries, Prometheus exports) into answers: knee, ceiling,
// validity checks, saturation, capacity models and cost.
//
// The command layer is thin: each subcommand lives in its own file, parses
// flags into an options struct, calls the pkg/ packages and renders.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/ldanalyze/ldanalyze/internal/outfile"
	"github.com/urfave/cli/v2"
)

func main() {
	// ldanalyze's heap is mostly long-lived accumulators (sketches,
	// per-second records) and the reader's buffers, so the GC's default
	// 100 % headroom only doubles the peak resident memory; at 50 % the
	// GC still costs ~1 % of the CPU of a read (BENCHMARKS.md). GOGC in
	// the environment overrides this.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
	// SIGINT and SIGTERM cancel the context and abandon the outputs being
	// written (their temporary files are removed); a second signal kills
	// at once.
	outs := &outfile.Set{}
	code := cliapp.UntilSignal(os.Stderr, func(ctx context.Context) int {
		return exitCode(runOutputs(ctx, outs, os.Args, os.Stdin, os.Stdout, os.Stderr), os.Stderr)
	}, outs.Abort)
	os.Exit(code)
}

// errFinding marks an analysis that ran correctly and found a failure (a
// failed SLO, a failed validity check). It maps to exit code 1.
type errFinding struct{ msg string }

func (e errFinding) Error() string { return e.msg }

// exitCode maps an error to the process exit code in one place:
// 0 ok, 1 the analysis found a failure, 2 usage or input error.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var f errFinding
	if errors.As(err, &f) {
		fmt.Fprintln(stderr, "ldanalyze:", f.msg)
		return 1
	}
	fmt.Fprintln(stderr, "ldanalyze:", err)
	return 2
}

// env is what every subcommand may touch of the outside world.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// outs are the files the command writes (-o, report's plots and
	// HTML): put in place when it succeeds, abandoned otherwise.
	outs *outfile.Set
}

// run builds the CLI app and runs it with args (args[0] is the program name).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return runOutputs(ctx, &outfile.Set{}, args, stdin, stdout, stderr)
}

// runOutputs is run with the command's output files kept in outs: they
// replace their targets when the command returns without error or with a
// finding (exit 1: a check's table is still the command's output), and are
// abandoned, the targets untouched, on any other error.
func runOutputs(ctx context.Context, outs *outfile.Set, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, outs: outs}
	app := &cli.App{
		Name:      "ldanalyze",
		Usage:     "analyse load-test results: knee, ceiling, validity, saturation, models, cost",
		Writer:    stdout,
		ErrWriter: stderr,
		Reader:    stdin,
		// Errors are printed once, by exitCode.
		ExitErrHandler:  func(*cli.Context, error) {},
		HideHelpCommand: true,
		Commands:        commands(e),
	}
	cliapp.CheckOutputsFirst(app.Commands)
	configure(app, e)
	err := app.RunContext(ctx, flagsAnywhere(app.Commands, args))
	var f errFinding
	if err != nil && !errors.As(err, &f) {
		outs.Abort()
		return err
	}
	if cerr := outs.Commit(); cerr != nil {
		return cerr
	}
	return err
}

// commands lists every subcommand; each is built in its own file.
func commands(e *env) []*cli.Command {
	return []*cli.Command{
		kneeCommand(e),
		checkCommand(e),
		costCommand(e),
		scaleCommand(e),
		queueCommand(e),
		summaryCommand(e),
		convertCommand(e),
		promCommand(e),
		reportCommand(e),
		compareCommand(e),
		suiteCommand(e),
		ledgerCommand(e),
	}
}
