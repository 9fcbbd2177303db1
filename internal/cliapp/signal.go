package cliapp

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// UntilSignal runs run with a context that SIGINT and SIGTERM cancel and
// returns run's exit code; on a signal it does not wait for run: it calls
// abort (to abandon the outputs being written), says on stderr that it
// stopped, and returns 130 (128 + SIGINT) or 143 (SIGTERM). A second
// signal kills the process at once (the default action, restored).
func UntilSignal(stderr io.Writer, run func(ctx context.Context) int, abort func()) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan int, 1)
	go func() { done <- run(ctx) }()
	select {
	case code := <-done:
		return code
	case <-ctx.Done():
		stop()
		abort()
		cause := context.Cause(ctx)
		fmt.Fprintln(stderr, "ldanalyze:", cause, "- stopped; no output written")
		if cause.Error() == syscall.SIGTERM.String()+" signal received" {
			return 143
		}
		return 130
	}
}
