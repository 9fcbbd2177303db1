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
	os.Exit(exitCode(run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr), os.Stderr))
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
}

// run builds the CLI app and runs it with args (args[0] is the program name).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
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
	configure(app, e)
	return app.RunContext(ctx, flagsAnywhere(app.Commands, args))
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
		ledgerCommand(e),
	}
}
