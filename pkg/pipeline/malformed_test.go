package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
)

// TestEveryLineMalformed: an input whose data lines were all skipped as
// malformed says so, with the count, instead of "the input has a header
// but no data rows" (which a JSON-lines file has no header to fit, and
// which sends the user looking for missing rows rather than bad ones).
func TestEveryLineMalformed(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "frac.csv")
	json := filepath.Join(dir, "bad.json")
	hdr := "metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata\n"
	row := "http_req_duration,1796004258.5,16.786114,,,,true,,POST,order,HTTP/1.1,s,,200,,,order,,\n"
	files := map[string]string{
		csv:  hdr + row + row + row,
		json: `{"metric":"http_req_duration","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":` + "\n" + "not json\n",
	}
	for p, s := range files {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, n := range map[string]string{csv: "3", json: "2"} {
		_, err := Run([]string{p}, Options{})
		if err == nil || !errors.Is(err, knee.ErrNoSamples) {
			t.Fatalf("%s: %v; want ErrNoSamples", p, err)
		}
		msg := err.Error()
		if strings.Contains(msg, "header but no data rows") || !strings.Contains(msg, "all "+n+" ") || !strings.Contains(msg, "malformed") {
			t.Errorf("%s: %q; want it to say all %s data lines were malformed", p, msg, n)
		}
	}
}
