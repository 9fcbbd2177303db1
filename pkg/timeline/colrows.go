package timeline

import (
	"strconv"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/outcome"
)

// The rows AddBatch adds from the batch's tag columns (ingest.Batch.TagIDs)
// rather than through Add: the successful HTTP requests (http_reqs) and
// their latency (an HTTP latency candidate such as http_req_duration),
// checks and iterations, which ask for a few tags each. Each such row
// does exactly what Add does with it, in the same order, with a tag read
// as a column id instead of a Tags.Get: the strings are the same, and
// so are the calls into totals, the second records and the sketches.
// A row whose tags Add would look up elsewhere (a key that is not a tag
// column of the file: Tags.Get then reads the extra tags and metadata),
// or whose request failed or cannot be classified without error_code,
// goes to Add whole. TestColumnarRowsSameAsAdd compares the two.

// colKind is how AddBatch adds the rows of a metric (batchMemo.col).
type colKind uint8

const (
	colNone      colKind = iota // Add
	colRequest                  // an HTTP request stream (http_reqs)
	colLatency                  // an HTTP latency candidate's Trend
	colCheck                    // checks
	colIteration                // iterations
)

// The tag columns the rows read, by index into colTags.ids.
const (
	tagStatus = iota
	tagExpected
	tagName
	tagURL
	tagScenario
	tagCheck
	nColTags
)

var colTagKeys = [nColTags]string{"status", "expected_response", "name", "url", "scenario", "check"}

// colTags is AddBatch's view of the tag columns of one batch: each
// column's ids fetched on first use, and the batch's memos (table ids
// hold for one batch only).
type colTags struct {
	b     *ingest.Batch
	got   uint8 // columns fetched
	isCol uint8 // of those, the keys that are tag columns
	ids   [nColTags][]int32

	// okStatus, okExpected: the (status, expected_response) ids last
	// classified, okKnown set; ok whether classifyHTTP says Success for
	// them without reading error_code.
	okStatus, okExpected int32
	okKnown, ok          bool
	// names are the request-name ids last numbered (nameIndex) and nums
	// their numbers.
	names [4]int32
	nums  [4]int
	nName int
	s     ingest.Sample // TimeNS and Value for totals.span
	// ready[k] is 1 when every tag column colKind k reads (url aside)
	// is one, 2 when one is not, 0 until asked.
	ready [colIteration + 1]uint8
}

// reset starts the view of batch b.
func (c *colTags) reset(b *ingest.Batch) {
	c.b, c.got, c.isCol, c.okKnown, c.nName = b, 0, 0, false, 0
	c.ready = [colIteration + 1]uint8{}
}

// colTagsOf are the tag columns colKind k reads (url only for a row with
// no name, asked then).
var colTagsOf = [colIteration + 1]uint8{
	colRequest:   1<<tagStatus | 1<<tagExpected | 1<<tagName | 1<<tagScenario,
	colLatency:   1<<tagStatus | 1<<tagExpected | 1<<tagName,
	colCheck:     1 << tagCheck,
	colIteration: 1 << tagScenario,
}

// prepare fetches the tag columns of colKind k and reports whether all
// are tag columns of the file.
func (c *colTags) prepare(k colKind) bool {
	if c.ready[k] == 0 {
		c.ready[k] = 1
		for j := range nColTags {
			if colTagsOf[k]&(1<<j) != 0 {
				if _, ok := c.column(j); !ok {
					c.ready[k] = 2
				}
			}
		}
	}
	return c.ready[k] == 1
}

// column returns tag column k's ids, and false when the key is not a tag
// column of the file.
func (c *colTags) column(k int) ([]int32, bool) {
	bit := uint8(1) << k
	if c.got&bit == 0 {
		c.got |= bit
		if ids, ok := c.b.TagIDs(colTagKeys[k]); ok {
			c.ids[k] = ids
			c.isCol |= bit
		}
	}
	return c.ids[k], c.isCol&bit != 0
}

// colOf is the colKind of a metric of kind k with slot's series flag.
func (a *Accumulator) colOf(k metricKind, series bool) colKind {
	if series {
		// Series keys hash every tag: left to Add.
		if k.stream == outcome.HTTP && k.cand < 0 && k.op == opNone {
			return colRequest
		}
		return colNone
	}
	switch {
	case k.cand >= 0:
		if k.stream == outcome.None && k.op == opNone && a.candP[k.cand] == outcome.HTTP {
			return colLatency
		}
	case k.stream == outcome.HTTP:
		if k.op == opNone {
			return colRequest
		}
	case k.stream == outcome.None && k.op == opChecks:
		return colCheck
	case k.stream == outcome.None && k.op == opIterations:
		return colIteration
	}
	return colNone
}

// success reports whether classifyHTTP says Success for row i without
// reading error_code (expected_response "true", or none and a status of
// 1–399). The status and expected_response columns must be fetched.
func (c *colTags) success(i int) bool {
	s, e := c.ids[tagStatus][i], c.ids[tagExpected][i]
	if c.okKnown && s == c.okStatus && e == c.okExpected {
		return c.ok
	}
	names := c.b.Names
	c.okStatus, c.okExpected, c.okKnown = s, e, true
	switch {
	case e != 0:
		c.ok = names[e] == "true"
	case s != 0:
		n, err := strconv.Atoi(names[s])
		c.ok = err == nil && n > 0 && n < 400
	default:
		c.ok = false
	}
	return c.ok
}

// requestName is requestName of row i: its name, else its url; known is
// false when the url is needed and not a tag column. The name column
// must be fetched.
func (c *colTags) requestName(i int) (id int32, known bool) {
	if id = c.ids[tagName][i]; id != 0 {
		return id, true
	}
	us, ok := c.column(tagURL)
	if !ok {
		return 0, false
	}
	return us[i], true
}

// nameNumber is nameIndex of the request name id.
func (a *Accumulator) nameNumber(c *colTags, id int32) int {
	for k, x := range c.names[:c.nName] {
		if x == id {
			return c.nums[k]
		}
	}
	n := c.b.Names[id]
	i, ok := a.histLocal[n]
	if !ok {
		i = a.sh.names.Of(n)
		a.histLocal[n] = i
	}
	k := c.nName
	if k == len(c.names) {
		k = int(id) & (len(c.names) - 1)
	} else {
		c.nName++
	}
	c.names[k], c.nums[k] = id, i
	return i
}

// addCol adds row i of b (metric memo m) as Add would, and reports
// whether it did; false leaves the row, untouched, to Add.
func (a *Accumulator) addCol(b *ingest.Batch, i int, m *batchMemo) bool {
	c := &a.col
	if m.col == colNone || !c.prepare(m.col) {
		return false
	}
	ns, v := b.TimesNS[i], b.Values[i]
	t := &a.tot
	var name int32
	if m.col <= colLatency {
		if !c.success(i) {
			return false
		}
		var ok bool
		if name, ok = c.requestName(i); !ok {
			return false
		}
	}
	// Add's opening: the row's time, the metric's count and series.
	t.rows++
	if !t.any || ns < t.minNS {
		t.minNS = ns
	}
	if !t.any || ns > t.maxNS {
		t.maxNS = ns
	}
	t.any = true
	*m.counts++
	if m.series && len(t.series) < MaxSeries {
		a.card.addSeries(t, a.card.seriesKey(b.Sample(i)))
	}
	sc := a.live.At(secOf(ns))
	sc.any = true
	names := b.Names
	switch m.col {
	case colRequest: // addRequest, for a Success of HTTP
		pi := protoIndex(outcome.HTTP)
		r := &sc.req[pi]
		n := count(v)
		r.n += n
		if s := names[c.ids[tagScenario][i]]; s != "" {
			t.addScenario(s, ns)
		}
		st := names[c.ids[tagStatus][i]]
		if c.ids[tagExpected][i] != 0 {
			t.hasExpected = true
		}
		if len(t.names) < MaxNames {
			t.addName(names[name])
		}
		t.countStatus(statusName{proto: int8(pi), status: st}, uint64(n))
		r.ok += n
	case colLatency: // addLatency, for a Success
		ci := int(m.kind.cand)
		tr := &t.trends[ci]
		if v < 0 {
			tr.negative++
		} else if v > 86_400_000 {
			tr.huge++
		}
		key := a.input
		if key == "" {
			key = b.Sample(i).Source
		}
		c.s.TimeNS, c.s.Value = ns, v
		t.span(srcKey{ci, key}, &c.s)
		sc.metricN[ci]++
		tr.all.Add(v)
		tr.ok.Add(v)
		a.latW[ci].Add(secOf(ns), 0, v)
		if j := a.nameNumber(c, name); j < 0 {
			t.histOver++
		} else {
			sc.histAt(j).add(v)
		}
	case colCheck: // totals.addCheck
		cn := names[c.ids[tagCheck][i]]
		cc := t.checks[cn]
		if cc == nil {
			cc = &checkCount{}
			t.checks[cn] = cc
		}
		if v != 0 {
			cc.pass++
		} else {
			if cc.fail == 0 || ns < cc.firstFailNS {
				cc.firstFailNS = ns
			}
			cc.fail++
		}
	case colIteration:
		sc.iterations += count(v)
		if s := names[c.ids[tagScenario][i]]; s != "" {
			t.addScenario(s, ns)
		}
	}
	return true
}
