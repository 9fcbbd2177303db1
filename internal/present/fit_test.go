package present

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
)

// TestKneeTextFitsTerminal: on a terminal of 100 columns the knee text's
// tables fit (the levels table leaves out its low-value columns and says
// so) and its prose wraps; written to a pipe (width 0) it is the golden output of `ldanalyze
// knee`, whatever the terminal.
func TestKneeTextFitsTerminal(t *testing.T) {
	path := "../../testdata/k6/breakpoint.csv.gz"
	pcts := []float64{50, 90, 95, 99}
	// The options `ldanalyze knee` uses by default.
	opt := pipeline.Options{Knee: knee.Options{WindowNS: 30e9, RampStepNS: 10e9, Percentiles: pcts}}
	an, err := pipeline.Run([]string{path}, opt)
	if err != nil {
		t.Fatal(err)
	}
	doc := KneeDoc{Result: an.Knee, Input: InputOf([]string{path}, an.Input), Checks: an.Checks.Checks}
	var piped bytes.Buffer
	if err := KneeText(render.Fit(&piped, 0), render.Table, &doc, nil, nil, pcts); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../cmd/ldanalyze/testdata/golden/knee_breakpoint.txt")
	if err != nil {
		t.Fatal(err)
	}
	if piped.String() != string(want) {
		t.Errorf("piped knee text differs from the golden knee_breakpoint.txt")
	}
	var term bytes.Buffer
	if err := KneeText(render.Fit(&term, 100), render.Table, &doc, nil, nil, pcts); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(term.String(), "\n") {
		if runewidth.StringWidth(line) > 100 {
			t.Errorf("line of %d columns (tables and prose fit the terminal): %s", runewidth.StringWidth(line), line)
		}
	}
	if !strings.Contains(term.String(), "(not shown, to fit 100 columns: B/req, recv/s, dropped/s") {
		t.Errorf("no note of the columns left out:\n%s", term.String())
	}
}
