package pipeline

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
)

// TestSeparateRunsOneWarning: three runs of a sweep, 10 s each, an hour
// apart, given to one analysis: the three pairs that do not overlap make
// one warning naming the commands that read them apart, not three.
func TestSeparateRunsOneWarning(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for k := range 3 {
		var b strings.Builder
		b.WriteString("metric_name,timestamp,metric_value,expected_response,status\n")
		for s := range 10 {
			ts := strconv.Itoa(1796100000 + 3600*k + s)
			b.WriteString("http_reqs," + ts + ",1,true,200\nhttp_req_duration," + ts + ",10,true,200\niterations," + ts + ",1,,\nvus," + ts + ",1,,\n")
		}
		p := filepath.Join(dir, "vus"+strconv.Itoa(k+1)+".csv")
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	an, err := Run(paths, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, w := range an.Knee.Warnings {
		if w.Code == knee.WarnSeparateRuns {
			msgs = append(msgs, w.Message)
		}
	}
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], "3 pairs of the 3 input files do not overlap in time") || !strings.Contains(msgs[0], "ldanalyze suite") {
		t.Errorf("separate-runs warnings: %q", msgs)
	}
}
