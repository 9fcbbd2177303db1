package main

import (
	"time"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/urfave/cli/v2"
)

// runFlags are the flags of every command that analyses a run
// (cliapp.RunFlags; runOptions reads them).
func runFlags(window time.Duration, windowUsage string) []cli.Flag {
	return cliapp.RunFlags(window, windowUsage)
}

// usageOrNil is err as a usage error (exit 2), nil for nil.
func usageOrNil(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}
