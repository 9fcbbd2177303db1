package prom

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pts renders series as "key: t=v t=v" lines (t in Unix seconds) for
// compact expectations.
func pts(ss []Series) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s.Key())
		b.WriteString(":")
		for _, p := range s.Points {
			b.WriteString(" ")
			b.WriteString(time.Unix(0, p.TimeNS).UTC().Format("15:04:05.000"))
			b.WriteString("=")
			b.WriteString(formatV(p.Value))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// formatV is strconv's shortest form: NaN, +Inf and -Inf as such.
func formatV(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func TestParseAPI(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // pts() of the series
		warn     string
		skipped  string
		err      string
	}{
		{
			name: "matrix with NaN, Inf, a duplicate timestamp and labels in another order",
			in: `{"status":"success","warnings":["query is slow"],"data":{"resultType":"matrix","result":[
{"metric":{"pod":"a","namespace":"x"},"values":[[1700000000,"1"],[1700000015.5,"NaN"],[1700000030,"+Inf"]]},
{"metric":{"namespace":"x","pod":"a"},"values":[[1700000030,"-Inf"],[1700000045,"2.5"]]}]}}`,
			want: "{namespace=\"x\", pod=\"a\"}: 22:13:20.000=1 22:13:35.500=NaN 22:13:50.000=-Inf 22:14:05.000=2.5\n",
			warn: "query is slow|x.json: 1 duplicate timestamps: the last value of each was kept",
		},
		{
			name: "vector",
			in:   `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"up"},"value":[1700000000.123,"1"]}]}}`,
			want: "{__name__=\"up\"}: 22:13:20.123=1\n",
		},
		{
			name: "scalar",
			in:   `{"status":"success","data":{"resultType":"scalar","result":[1700000000,"0.5"]}}`,
			want: "{}: 22:13:20.000=0.5\n",
		},
		{
			name:    "one bad series is skipped",
			in:      "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[\n{\"metric\":{},\"values\":[[1,\"x\"]]},\n{\"metric\":{\"a\":\"b\"},\"values\":[[1700000000,\"3\"]]}]}}",
			want:    "{a=\"b\"}: 22:13:20.000=3\n",
			skipped: `x.json:2:1: result[0]: strconv.ParseFloat: parsing "x": invalid syntax`,
		},
		{
			name: "error status verbatim",
			in:   `{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:4: parse error","warnings":["w"]}`,
			err:  `x.json: Prometheus API status "error" (bad_data): invalid parameter "query": 1:4: parse error; warning: w`,
		},
		{
			name: "syntax error with line and column",
			in:   "{\"status\":\"success\",\n\"data\": {]}",
			err:  `x.json:2:10: invalid character ']': want a key of "data"`,
		},
		{
			name: "string result",
			in:   `{"status":"success","data":{"resultType":"string","result":[1,"x"]}}`,
			err:  `x.json:1:42: resultType "string": want matrix, vector or scalar`,
		},
		{
			name: "not an API response",
			in:   `{"data":1}`,
			err:  `x.json:1:1: no "status" field: not a Prometheus API response`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseAPI([]byte(tc.in), "x.json")
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v\nwant %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := pts(d.Series); got != tc.want {
				t.Errorf("series\n%s\nwant\n%s", got, tc.want)
			}
			if got := strings.Join(d.Warnings, "|"); got != tc.warn {
				t.Errorf("warnings %q, want %q", got, tc.warn)
			}
			var sk []string
			for _, s := range d.Skipped {
				sk = append(sk, s.Error())
			}
			if got := strings.Join(sk, "|"); got != tc.skipped {
				t.Errorf("skipped %q, want %q", got, tc.skipped)
			}
		})
	}
}

func TestAPIErrorType(t *testing.T) {
	_, err := ParseAPI([]byte(`{"status":"error","errorType":"timeout","error":"query timed out"}`), "f")
	var ae *APIError
	if !errors.As(err, &ae) || ae.ErrorType != "timeout" || ae.Message != "query timed out" {
		t.Errorf("err = %#v, want an *APIError with the server's words", err)
	}
}

func TestGrafanaCSV(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, skipped string
		loc                     *time.Location
	}{
		{
			name: "series joined by time, quoted headers, CRLF, epoch ms, blank cells",
			in:   "\"Time\",\"{pod=\"\"a\"\", namespace=\"\"x\"\"}\",\"b-legend\"\r\n1700000000000,1.5,\r\n1700000015000,,2\r\n1700000030000,NaN,3\r\n",
			want: "{legend=\"b-legend\"}: 22:13:35.000=2 22:13:50.000=3\n{namespace=\"x\", pod=\"a\"}: 22:13:20.000=1.5 22:13:50.000=NaN\n",
		},
		{
			name: "semicolons, formatted time in a dashboard time zone, Excel sep line",
			in:   "sep=;\r\n\"Time\";\"cpu\"\r\n2023-11-14 23:13:20;0.25\r\n2023-11-14 23:13:35;0.5\r\n",
			loc:  time.FixedZone("CET", 3600),
			want: "{legend=\"cpu\"}: 22:13:20.000=0.25 22:13:35.000=0.5\n",
		},
		{
			name: "one frame per series, separated by blank lines",
			in:   "\"Time\",\"up{job=\"\"a\"\"}\"\n1700000000000,1\n\n\"Time\",\"up{job=\"\"b\"\"}\"\n1700000000000,0\n1700000015000,1\n",
			want: "{__name__=\"up\", job=\"a\"}: 22:13:20.000=1\n{__name__=\"up\", job=\"b\"}: 22:13:20.000=0 22:13:35.000=1\n",
		},
		{
			name: "Series,Time,Value rows",
			in:   "Series,Time,Value\na,1700000000000,1\nb,1700000000000,2\na,1700000015000,3\n",
			want: "{legend=\"a\"}: 22:13:20.000=1 22:13:35.000=3\n{legend=\"b\"}: 22:13:20.000=2\n",
		},
		{
			name:    "a formatted value with a unit is skipped",
			in:      "Time,mem\n1700000000000,12.3 MiB\n1700000015000,13\n",
			want:    "{legend=\"mem\"}: 22:13:35.000=13\n",
			skipped: `g.csv:2:15: value "12.3 MiB" is not a number: export with "Formatted data" off so values carry no units`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ReadGrafanaCSV(strings.NewReader(tc.in), "g.csv", GrafanaOptions{Location: tc.loc})
			if err != nil {
				t.Fatal(err)
			}
			if got := pts(d.Series); got != tc.want {
				t.Errorf("series\n%s\nwant\n%s", got, tc.want)
			}
			var sk []string
			for _, s := range d.Skipped {
				sk = append(sk, s.Error())
			}
			if got := strings.Join(sk, "|"); got != tc.skipped {
				t.Errorf("skipped %q, want %q", got, tc.skipped)
			}
		})
	}
}

func TestVM(t *testing.T) {
	in := `{"metric":{"__name__":"up","job":"node"},"values":[1,1],"timestamps":[1700000000000,1700000015000]}
{"metric":{"job":"node","__name__":"up"},"values":[0,"NaN"],"timestamps":[1700000030000,1700000045000]}
{"metric":{"__name__":"up"},"values":[1],"timestamps":[]}
not json
`
	d, err := ReadVM(strings.NewReader(in), "vm.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := "{__name__=\"up\", job=\"node\"}: 22:13:20.000=1 22:13:35.000=1 22:13:50.000=0 22:14:05.000=NaN\n"
	if got := pts(d.Series); got != want {
		t.Errorf("series\n%s\nwant\n%s", got, want)
	}
	var sk []string
	for _, s := range d.Skipped {
		sk = append(sk, s.Error())
	}
	wantSk := `vm.jsonl:3:1: 1 values but 0 timestamps: want one timestamp per value|vm.jsonl:4:2: invalid character 'o' in literal null (expecting 'u'): want {"metric":{...},"values":[...],"timestamps":[<unix ms>,...]}`
	if got := strings.Join(sk, "|"); got != wantSk {
		t.Errorf("skipped\n%s\nwant\n%s", got, wantSk)
	}
}

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, warn, err string
	}{
		{
			name: "federation text, ms timestamps, escapes, an untimed sample",
			in:   "# TYPE c untyped\nc{a=\"x\\\"y\"} 1.5 1700000000123\nc{a=\"z\"} +Inf 1700000000123\nc{a=\"w\"} 3\n",
			want: "{__name__=\"c\", a=\"x\\\"y\"}: 22:13:20.123=1.5\n{__name__=\"c\", a=\"z\"}: 22:13:20.123=+Inf\n",
			warn: "t.txt: 1 samples without a timestamp were left out: they cannot be placed on the run's clock",
		},
		{
			name: "OpenMetrics, seconds",
			in:   "# TYPE req counter\nreq_total{code=\"200\"} 1021 1700000000.5\nreq_total{code=\"200\"} 1030 1700000015.5\n# EOF\n",
			want: "{__name__=\"req_total\", code=\"200\"}: 22:13:20.500=1021 22:13:35.500=1030\n",
		},
		{
			name: "OpenMetrics with millisecond timestamps",
			in:   "up 1 1700000000000\n# EOF\n",
			err:  `t.txt: up: timestamp 1700000000000000 ms is after the year 3000: OpenMetrics timestamps are seconds, these look like milliseconds`,
		},
		{
			name: "syntax error",
			in:   "up 1 1700000000000\nup{a=} 1\n",
			err:  `t.txt:2: expected label value, got "}" ("INVALID") while parsing: "up{a=}"`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ReadText(strings.NewReader(tc.in), "t.txt")
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v\nwant %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := pts(d.Series); got != tc.want {
				t.Errorf("series\n%s\nwant\n%s", got, tc.want)
			}
			if got := strings.Join(d.Warnings, "|"); got != tc.warn {
				t.Errorf("warnings %q, want %q", got, tc.warn)
			}
		})
	}
}

func TestReadSniffs(t *testing.T) {
	for in, want := range map[string]string{
		`{"status":"success","data":{"resultType":"vector","result":[]}}`: "api",
		`{"metric":{"a":"b"},"values":[1],"timestamps":[1]}`:              "victoriametrics",
		"# HELP x y\nx 1 1\n":   "text",
		"\"Time\",\"x\"\n1,2\n": "grafana-csv",
		"time_seconds 1 1\n":    "text",
	} {
		d, err := Read(strings.NewReader(in), "f", GrafanaOptions{})
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if d.Format != want {
			t.Errorf("%q: format %s, want %s", in, d.Format, want)
		}
	}
}

// Rate of a counter with a reset: 10 → 40 over 15 s is 2/s; 40 → 6 is a
// reset, so the increase is 6 over 15 s = 0.4/s (Prometheus's rule); 6 → 21
// is 1/s. Hand-computed.
func TestRateReset(t *testing.T) {
	in := []Point{{TimeNS: 0, Value: 10}, {TimeNS: 15e9, Value: 40}, {TimeNS: 30e9, Value: 6}, {TimeNS: 45e9, Value: math.NaN()}, {TimeNS: 60e9, Value: 36}}
	got := Rate(in)
	want := []Point{{TimeNS: 15e9, Value: 2}, {TimeNS: 30e9, Value: 0.4}, {TimeNS: 60e9, Value: 1}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].TimeNS != want[i].TimeNS || math.Abs(got[i].Value-want[i].Value) > 1e-12 {
			t.Errorf("point %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// 11,000 points per request at most: 30 h at 5 s is 30·3600/5 + 1 =
// 21,601 points; a chunk holds 11,000 (10,999 steps), so two chunks of
// 11,000 and 10,601.
func TestChunks(t *testing.T) {
	start := time.Unix(0, 0).UTC()
	end := start.Add(30 * time.Hour)
	cs := Chunks(start, end, 5*time.Second, MaxPointsPerSeries)
	if len(cs) != 2 {
		t.Fatalf("%d chunks", len(cs))
	}
	total := 0
	for i, c := range cs {
		n := int(c.End.Sub(c.Start)/c.Step) + 1
		if n > MaxPointsPerSeries {
			t.Errorf("chunk %d has %d points", i, n)
		}
		total += n
		if i > 0 && !c.Start.Equal(cs[i-1].End.Add(c.Step)) {
			t.Errorf("chunk %d starts at %s, want one step after %s", i, c.Start, cs[i-1].End)
		}
	}
	if total != 21601 {
		t.Errorf("%d points in all, want 30 h / 5 s + 1 = 21601", total)
	}
}

func TestReadQueries(t *testing.T) {
	qs, err := ReadQueries(strings.NewReader("queries:\n  - name: db_cpu\n    expr: x\n    role: utilisation_ratio\n  - name: pod_cpu_cores\n    expr: y\n    role: pod_cpu_cores\n"), "q.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != len(Presets)+1 || qs[0].Expr != "y" || qs[len(qs)-1].Name != "db_cpu" {
		t.Errorf("got %+v", qs)
	}
	_, err = ReadQueries(strings.NewReader("queries:\n  - name: bad name\n    expr: x\n"), "q.yaml")
	if err == nil || err.Error() != `q.yaml: queries[0]: name "bad name": want letters, digits, '_' or '-'` {
		t.Errorf("err = %v", err)
	}
	_, err = ReadQueries(strings.NewReader("querys: []\n"), "q.yaml")
	if err == nil || !strings.Contains(err.Error(), "field querys not found") {
		t.Errorf("err = %v", err)
	}
}
