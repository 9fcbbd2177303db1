package timeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

// variedCSV is a k6 CSV of requests whose tags vary the way addCol's
// cases do: expected_response true, false or empty; statuses 200, 404,
// 429, 0, empty and "abc"; error codes; names empty (the url is the
// name) or past MaxHistNames; scenarios empty or several; checks passing
// and failing under a few names; timing sub-metrics and iterations
// between. With header false the file has no expected_response and no
// scenario column (the scenario is in extra_tags, where only Add looks).
func variedCSV(t *testing.T, header bool) string {
	var b strings.Builder
	if header {
		b.WriteString("metric_name,timestamp,metric_value,check,error_code,expected_response,name,scenario,status,url,extra_tags,metadata\n")
	} else {
		b.WriteString("metric_name,timestamp,metric_value,check,error_code,name,status,url,extra_tags,metadata\n")
	}
	statuses := []string{"200", "200", "200", "404", "429", "0", "", "abc", "201", "200"}
	expects := []string{"true", "true", "", "false", "true", "", "false", "true"}
	for i := range 30000 {
		ts := 1796004429 + i/400
		st, ex := statuses[i%len(statuses)], expects[i/3%len(expects)]
		code := ""
		if st == "0" || st == "" || i%17 == 0 {
			code = []string{"1050", "1211", "1404", "1000"}[i%4]
		}
		name := fmt.Sprintf("/n%d", i%23)
		if i%7 == 0 {
			name = ""
		}
		url := fmt.Sprintf("http://h/u%d", i%31)
		scen := []string{"s1", "s2", "", "s1"}[i/5%4]
		check := []string{"status is 200", "body ok", ""}[i%3]
		for _, mv := range []struct {
			metric, value string
		}{
			{"http_reqs", "1"},
			{"http_req_duration", fmt.Sprintf("%d.%03d", i%211, i%1000)},
			{"http_req_waiting", fmt.Sprintf("%d.5", i%97)},
			{"http_req_failed", fmt.Sprint(i % 9 / 8)},
			{"checks", fmt.Sprint(i % 5 / 4)},
			{"iterations", "1"},
		} {
			if (mv.metric == "http_reqs" || mv.metric == "iterations") && i%29 == 0 {
				mv.value = []string{"3", "0"}[i%2]
			}
			if header {
				fmt.Fprintf(&b, "%s,%d,%s,%s,%s,%s,%s,%s,%s,%s,,\n", mv.metric, ts, mv.value, check, code, ex, name, scen, st, url)
			} else {
				extra := ""
				if scen != "" {
					extra = "scenario=" + scen
				}
				fmt.Fprintf(&b, "%s,%d,%s,%s,%s,%s,%s,%s,%s,\n", mv.metric, ts, mv.value, check, code, name, st, url, extra)
			}
		}
	}
	p := filepath.Join(t.TempDir(), "varied.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestColumnarRowsSameAsAdd: the requests, latencies, checks and
// iterations that AddBatch adds from tag columns (addCol) leave the same
// totals and seconds as Add row by row, for every latency candidate
// choice, in Parquet files of several row groups and in Arrow, with
// nulls in every tag column, and in a file whose scenario only Add finds.
func TestColumnarRowsSameAsAdd(t *testing.T) {
	for _, header := range []bool{true, false} {
		f := variedCSV(t, header)
		for _, c := range []struct {
			format ingest.Format
			rows   int
		}{{ingest.FormatParquet, 0}, {ingest.FormatParquet, 4099}, {ingest.FormatArrow, 1000}} {
			for _, metric := range []string{"", "http_req_duration", "http_req_waiting"} {
				t.Run(fmt.Sprintf("%v/%s/%d/%s", header, c.format, c.rows, metric), func(t *testing.T) {
					p := columnarCopy(t, f, c.format, c.rows)
					opt := Options{Metric: metric}
					row, bat := New(opt), New(opt)
					row.SetInput(p)
					bat.SetInput(p)
					st := drainInto(t, p, row, false)
					if st2 := drainInto(t, p, bat, true); st2.Rows != st.Rows {
						t.Fatalf("rows %d, want %d", st2.Rows, st.Rows)
					}
					x, y := row.Close(st.ResolutionNS), bat.Close(st.ResolutionNS)
					if len(x.tot.checks) == 0 || len(x.tot.scenarios) == 0 || len(x.tot.byStatusName) == 0 {
						t.Fatalf("nothing to compare: checks %v, scenarios %v, failures %v", x.tot.checks, x.tot.scenarios, x.tot.byStatusName)
					}
					sameTimeline(t, x, y)
				})
			}
		}
	}
}
