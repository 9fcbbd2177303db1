package ingest

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// genK6 writes n k6 JSON lines as a k6 run writes them (the points of a
// request at one time with one tags object, in k6's metric order, then
// the iteration's checks and data points, Metric lines before first use)
// with, at rate odd per line, one of the changes that a shortcut for k6's
// exact form or for a repeat of an earlier line must notice: another
// value shape (exponents, signs, leading zeros), time (one digit off, a
// zone, out of range, malformed), tags (one value changed, escapes,
// non-ASCII, keys reordered or repeated, null, empty, missing, long),
// metadata, spacing and key order, CR or spaces at the end, a line cut
// short, a metric out of order, blank, garbage and other-type lines.
func genK6(rng *rand.Rand, n int, odd float64) []string {
	type kv struct{ k, v string }
	obj := func(tags []kv) string {
		var sb strings.Builder
		sb.WriteByte('{')
		for i, t := range tags {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `"%s":"%s"`, t.k, t.v)
		}
		sb.WriteByte('}')
		return sb.String()
	}
	req := func(method, name, url, status string) []kv {
		t := []kv{{"expected_response", "true"}, {"group", ""}, {"method", method}, {"name", name}, {"proto", "HTTP/1.1"}, {"scenario", "default"}, {"status", status}, {"url", url}}
		if status != "200" {
			t = append([]kv{{"error_code", "1" + status}}, t...)
			t[1].v = "false"
		}
		return t
	}
	reqMetrics := []string{"http_reqs", "http_req_duration", "http_req_blocked", "http_req_connecting", "http_req_tls_handshaking", "http_req_sending", "http_req_waiting", "http_req_receiving", "http_req_failed"}
	iterMetrics := []string{"data_sent", "data_received", "iteration_duration", "iterations"}
	values := []string{"0", "1", "6.712662", "0.004143", "2406", "60.111366", "1e-06", "1.5E+3", "-1", "-0", "-0.25", "007", "1.", "12345678.125", "0.1234567891", "123456789012345678", "1.7976931348623157e309", "3.25e-5", "9999999.9999999", "0.5"}
	var out []string
	declared := map[string]bool{}
	ns := time.Date(2023, 11, 14, 22, 13, 27, 0, time.UTC).UnixNano()
	ts := func() string {
		ns += rng.Int64N(3_000_000_000)
		t := time.Unix(0, ns).UTC()
		switch rng.IntN(8) {
		case 0:
			t = t.Truncate(time.Second)
		case 1:
			t = t.Truncate(time.Microsecond)
		}
		return t.Format(time.RFC3339Nano)
	}
	value := func() string {
		if rng.IntN(3) == 0 {
			return values[rng.IntN(4)]
		}
		return fmt.Sprintf("%.6f", rng.Float64()*100)
	}
	point := func(metric, t, v, tags string) string {
		s := fmt.Sprintf(`{"metric":%q,"type":"Point","data":{"time":%q,"value":%s`, metric, t, v)
		if tags != "" {
			s += `,"tags":` + tags
		}
		return s + "}}"
	}
	// emit adds the point, changed at rate odd.
	emit := func(metric, t, v, tags string) {
		if !declared[metric] && rng.IntN(8) != 0 {
			declared[metric] = true
			out = append(out, fmt.Sprintf(`{"type":"Metric","data":{"name":%q,"type":"trend","contains":"time","thresholds":[],"submetrics":null},"metric":%q}`, metric, metric))
		}
		if rng.Float64() >= odd {
			out = append(out, point(metric, t, v, tags))
			return
		}
		switch rng.IntN(24) {
		case 0:
			v = values[rng.IntN(len(values))]
		case 1: // one digit of the time off
			b := []byte(t)
			b[len(b)-2] = '0' + byte(rng.IntN(10))
			t = string(b)
		case 2:
			t = []string{"2023-11-14T23:13:27.5+01:00", "2300-01-01T00:00:00Z", "2023-13-14T22:13:27Z", "2023-11-14 22:13:27Z", "", "2023-11-14T22:13:27.1234567891Z"}[rng.IntN(6)]
		case 3: // one value of the tags changed
			tags = strings.Replace(tags, `"200"`, `"201"`, 1)
		case 4:
			tags = strings.Replace(tags, `"default"`, []string{`"say \"hi\""`, `"é ü"`, `"a\u0041"`, `"tab\tx"`, `"x\\y"`}[rng.IntN(5)], 1)
		case 5: // keys reordered
			tags = strings.Replace(tags, `"group":"",`, ``, 1)
			if strings.HasPrefix(tags, "{") && len(tags) > 2 {
				tags = `{"group":"",` + tags[1:]
			}
		case 6:
			tags = strings.Replace(tags, `"proto":"HTTP/1.1"`, `"proto":"HTTP/1.1","proto":"h2"`, 1)
		case 7:
			tags = []string{"null", "{}", "", `{"name":"` + strings.Repeat("x", 5000) + `"}`, `{"a":1}`}[rng.IntN(5)]
		case 8:
			tags += `,"metadata":{"vu":"1","iter":"` + fmt.Sprint(rng.IntN(9)) + `"}`
		case 9: // spacing
			out = append(out, strings.ReplaceAll(point(metric, t, v, tags), `":`, `": `))
			return
		case 10: // key order
			out = append(out, fmt.Sprintf(`{"type":"Point","metric":%q,"data":{"value":%s,"time":%q,"tags":%s}}`, metric, v, t, cmpOr(tags, "null")))
			return
		case 11:
			out = append(out, point(metric, t, v, tags)+[]string{"\r", "  ", "\t", " x"}[rng.IntN(4)])
			return
		case 12: // cut short
			p := point(metric, t, v, tags)
			out = append(out, p[:rng.IntN(len(p))])
			return
		case 13:
			metric = []string{"http_reqs", "my_trend", "checks", "", "http_req_duration"}[rng.IntN(5)]
		case 14:
			out = append(out, []string{"", "   ", "garbage", `{"type":"Other","data":{}}`, `[1,2]`}[rng.IntN(5)])
		case 15:
			out = append(out, point(metric, t, v, tags), point(metric, t, v, tags))
			return
		case 16:
			tags = strings.Replace(tags, `"url":"`, `"url":"x`, 1)
		case 17: // a tail that is the last one's but for what follows the tags
			out = append(out, strings.TrimSuffix(point(metric, t, v, tags), "}")+`,"x":1}`)
			return
		case 18:
			v = "-" + v
		case 19:
			out = append(out, " "+point(metric, t, v, tags))
			return
		case 20: // a metric name with an escape
			out = append(out, strings.Replace(point(metric, t, v, tags), `"metric":"`, `"metric":"\u0061`, 1))
			return
		case 21:
			out = append(out, strings.Replace(point(metric, t, v, tags), `"type":"Point"`, `"type":"Metric"`, 1))
			return
		case 22: // no value
			out = append(out, strings.Replace(point(metric, t, v, tags), `"value":`+v+`,`, ``, 1))
			return
		case 23:
			v = v + "0"
		}
		out = append(out, point(metric, t, v, tags))
	}
	checks, data := obj([]kv{{"check", "status is 200"}, {"group", ""}, {"scenario", "default"}}), obj([]kv{{"group", ""}, {"scenario", "default"}})
	for len(out) < n {
		if rng.IntN(50) == 0 {
			t := ts()
			emit("vus", t, fmt.Sprint(rng.IntN(50)), "{}")
			emit("vus_max", t, "50", "{}")
		}
		var tags string
		switch rng.IntN(6) {
		case 0, 1:
			tags = obj(req("GET", "/menu", "http://127.0.0.1:3000/menu", "200"))
		case 2:
			tags = obj(req("POST", "/cart", "http://127.0.0.1:3000/cart", "200"))
		case 3:
			tags = obj(req("POST", "/checkout", "http://127.0.0.1:3000/checkout", []string{"200", "500", "503"}[rng.IntN(3)]))
		default:
			tags = obj(req("GET", "/items/{id}", fmt.Sprintf("http://127.0.0.1:3000/items/%d", rng.IntN(5000)), "200"))
		}
		t := ts()
		for _, m := range reqMetrics {
			emit(m, t, value(), tags)
		}
		emit("checks", ts(), "1", checks)
		t = ts()
		for _, m := range iterMetrics {
			emit(m, t, value(), data)
		}
	}
	return out
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// testSeed is the seed of the series hashes readK6Flat compares.
var testSeed = maphash.MakeSeed()

// readK6Flat reads src with a K6JSONReader (full: the general way only),
// through Next or through Drain with one sink (file order), and returns
// each sample (metric, time, value bits, tags and metadata, a tag by name,
// the extra tags, the column values, the series hash) and the stats and
// declarations.
func readK6Flat(t *testing.T, src string, full, drain bool) ([]string, string) {
	t.Helper()
	r := NewK6JSONReader(strings.NewReader(src), "g.json")
	r.full = full
	var got []string
	flat := func(s *Sample) {
		name, ok := s.Tags.Get("name")
		got = append(got, fmt.Sprintf("%s|%d|%x|%s|%s:%v|%s|%q|%x", s.Metric, s.TimeNS, math.Float64bits(s.Value), tagString(s), name, ok, s.Tags.Extra(), s.Tags.AppendValues(nil), s.Tags.SeriesHash(testSeed)))
	}
	if drain {
		if err := r.Drain([]func(*Sample){flat}); err != nil {
			t.Fatal(err)
		}
	} else {
		for r.Next() {
			flat(r.Sample())
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
	}
	st := r.Stats()
	var sb strings.Builder
	fmt.Fprintf(&sb, "rows %d skipped %d truncated %v resolution %d bytes %d steps %d\n", st.Rows, st.Skipped, st.Truncated, st.ResolutionNS, st.Bytes, st.TimeSteps)
	for _, e := range st.Errors {
		fmt.Fprintln(&sb, e)
	}
	for _, w := range st.Warnings {
		fmt.Fprintln(&sb, w)
	}
	ms := r.Metrics()
	keys := make([]string, 0, len(ms))
	for k := range ms {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&sb, "%s %+v\n", k, ms[k])
	}
	return got, sb.String()
}

// TestK6JSONFastMatchesFull: generated k6 JSON lines (genK6: k6's exact
// form and repeats, with every change a shortcut must notice) read
// through the shortcuts exactly as the general way reads them (full:
// scanPoint and encoding/json for every line, no repeat taken): the same
// samples with the same tags, metadata and columns, in order, the same
// stats (rows, skipped lines, errors with their line and column,
// warnings, resolution) and declarations, through Next and Drain; and each
// sample is what encoding/json finds in its line (refPoint). The inputs
// run from a few lines to several chunks, with changes from rare to one
// line in three.
func TestK6JSONFastMatchesFull(t *testing.T) {
	for seed := range uint64(24) {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := []int{20, 300, 3000, 12000}[seed%4]
		odd := []float64{0.002, 0.02, 0.1, 0.3}[seed/4%4]
		lines := genK6(rng, n, odd)
		src := strings.Join(lines, "\n")
		if seed%3 == 0 {
			src += "\n"
		}
		var want []flatSample
		for _, ln := range lines {
			ln := bytes.TrimRight([]byte(ln), " \t\r")
			if s, _, ok, _ := refPoint(ln); ok {
				want = append(want, s)
			}
		}
		fullS, fullSt := readK6Flat(t, src, true, false)
		if len(fullS) != len(want) {
			t.Fatalf("seed %d: the general way read %d samples, encoding/json %d", seed, len(fullS), len(want))
		}
		for _, drain := range []bool{false, true} {
			got, st := readK6Flat(t, src, false, drain)
			if st != fullSt {
				t.Fatalf("seed %d drain %v: stats\n%s\nthe general way's\n%s", seed, drain, st, fullSt)
			}
			for i := range max(len(got), len(fullS)) {
				if i >= len(got) || i >= len(fullS) || got[i] != fullS[i] {
					t.Fatalf("seed %d drain %v: sample %d of %d/%d\n got %.300q\nwant %.300q", seed, drain, i, len(got), len(fullS), at(got, i), at(fullS, i))
				}
			}
		}
		r := NewK6JSONReader(strings.NewReader(src), "g.json")
		i := 0
		for r.Next() {
			s := r.Sample()
			if g := (flatSample{s.Metric, s.TimeNS, s.Value, columnTags(s)}); g != want[i] {
				t.Fatalf("seed %d: sample %d %+v, encoding/json %+v", seed, i, g, want[i])
			}
			i++
		}
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// TestK6JSONQuickAfterRejected: a line rejected for its value (a negative
// duration) after its time was taken leaves that time the last one; the
// lines of the same request after it (quickRun's) count the time's
// fraction digits in the resolution (1 ns here, where the lines before
// have 1 ms, and the rejected line is the first at its time), through
// Next and Drain, and the rejected line alone is skipped.
func TestK6JSONQuickAfterRejected(t *testing.T) {
	a := `,"tags":{"name":"a","status":"200"}`
	pt := func(metric, time, value string) string {
		return fmt.Sprintf(`{"metric":%q,"type":"Point","data":{"time":%q,"value":%s%s}}`, metric, time, value, a)
	}
	t0, t1 := "2026-11-30T02:04:18.125Z", "2026-11-30T02:04:19.123456789Z"
	src := strings.Join([]string{
		pt("http_reqs", t0, "1"), pt("http_req_duration", t0, "2"), pt("http_req_blocked", t0, "3"),
		pt("http_req_duration", t1, "-2"), pt("http_req_blocked", t1, "3"),
	}, "\n")
	for _, drain := range []bool{false, true} {
		got, st := readK6Flat(t, src, false, drain)
		if !strings.HasPrefix(st, "rows 4 skipped 1 truncated false resolution 1 ") || len(got) != 4 {
			t.Errorf("drain %v: %d samples, stats %s; want 4 samples, 1 skipped, resolution 1 ns", drain, len(got), st)
		}
	}
}

// TestParseJSONTimeFractions: times with 0–12 fraction digits (any
// digits, trailing zeros kept), in UTC and with a zone, parse as
// time.Parse reads them, with their digit count (at most 9), or are
// refused when time.Parse refuses them; through parseJSONTime and the
// worker's minute cache alike.
func TestParseJSONTimeFractions(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	w := &jsonWorker{}
	for range 20000 {
		s := fmt.Sprintf("2024-%02d-%02dT%02d:%02d:%02d", 1+rng.IntN(12), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60))
		n := rng.IntN(13)
		if n > 0 {
			s += "."
			for range n {
				s += string(rune('0' + rng.IntN(10)))
			}
		}
		s += []string{"Z", "+02:00", "-05:30", "Z", "z"}[rng.IntN(5)]
		want, perr := time.Parse(time.RFC3339Nano, s)
		good := perr == nil
		for _, parse := range []func([]byte) (int64, int, error){parseJSONTime, w.parseTime} {
			ns, d, err := parse([]byte(s))
			if (err == nil) != good || good && (ns != want.UnixNano() || d != min(n, 9)) {
				t.Fatalf("%s: %d, %d digits, %v; time.Parse %d, %v (%d digits)", s, ns, d, err, want.UnixNano(), perr, min(n, 9))
			}
		}
	}
}
