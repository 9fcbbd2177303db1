package cliapp

import (
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
)

// Progress shows the reading of paths on stderr when stderr is a terminal
// and the input is large enough to wait for (over 256 MB), or unsized (a
// pipe: `k6 … | ldanalyze knee -`, a FIFO), as a spinner with the bytes
// read and the rate. It returns the function to feed with the bytes read
// (pipeline.Options.OnRead) and the one that clears the bar; both nil when
// nothing is shown.
func Progress(paths []string, stderr io.Writer) (onRead func(n int), done func()) {
	f, ok := stderr.(*os.File)
	if !ok || !isatty.IsTerminal(f.Fd()) {
		return nil, nil
	}
	var total int64
	for _, p := range paths {
		fi, err := os.Stat(p)
		if p == "-" || err != nil || !fi.Mode().IsRegular() {
			total = -1
			break
		}
		total += fi.Size()
	}
	if total >= 0 && total < 256<<20 {
		return nil, nil
	}
	bar := progressbar.NewOptions64(total, progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("reading"),
		progressbar.OptionShowBytes(true), progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
	return func(n int) { bar.Add(n) }, func() { bar.Finish(); bar.Exit() }
}
