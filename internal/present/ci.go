package present

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/checks"
)

// JUnitSuites is the JUnit XML document of `check --format junit`, the
// shape CI test reporters read (Jenkins, GitLab, GitHub test-report
// actions): one test suite for the run, one test case per check. A failed
// check is a <failure> with its message and evidence, a check that could
// not run (n/a) is <skipped>, a warning passes with the caveat in
// <system-out>.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is the test suite of one run: its checks.
type JUnitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []JUnitProperty `xml:"properties>property,omitempty"`
	Cases      []JUnitCase     `xml:"testcase"`
}

// JUnitProperty is a name and value of the suite (the input files, the
// rows read).
type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitCase is one check.
type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *JUnitFailure `xml:"failure,omitempty"`
	Skipped   *JUnitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// JUnitFailure is a failed check: its message and, as the body, the
// evidence.
type JUnitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// JUnitSkipped is a check that could not run on the input (n/a).
type JUnitSkipped struct {
	Message string `xml:"message,attr"`
}

// NewJUnit is the JUnit document of the checks of one run.
func NewJUnit(d *CheckDoc) *JUnitSuites {
	name := "ldanalyze check " + strings.Join(d.Input.Files, " ")
	s := JUnitSuite{Name: name, Properties: []JUnitProperty{
		{Name: "files", Value: strings.Join(d.Input.Files, ", ")},
		{Name: "rows", Value: fmt.Sprint(d.Input.Rows)},
		{Name: "skipped_lines", Value: fmt.Sprint(d.Input.Skipped)},
	}}
	for _, c := range d.Checks {
		tc := JUnitCase{Name: string(c.ID), Classname: "ldanalyze.check"}
		ev := evidenceText(c.Evidence)
		switch c.Status {
		case checks.Fail:
			tc.Failure = &JUnitFailure{Message: c.Message, Type: string(c.Status), Body: "evidence: " + ev}
			s.Failures++
		case checks.NA:
			tc.Skipped = &JUnitSkipped{Message: c.Message}
			s.Skipped++
		default:
			tc.SystemOut = fmt.Sprintf("%s: %s\nevidence: %s", c.Status, c.Message, ev)
		}
		s.Cases = append(s.Cases, tc)
	}
	s.Tests = len(s.Cases)
	return &JUnitSuites{Name: "ldanalyze check", Tests: s.Tests, Failures: s.Failures, Skipped: s.Skipped, Suites: []JUnitSuite{s}}
}

// Write writes the document as indented XML with its declaration.
func (j *JUnitSuites) Write(w io.Writer) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(j); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func evidenceText(ev checks.Evidence) string {
	s := make([]string, len(ev))
	for i, v := range ev {
		s[i] = v.Name + "=" + EvidenceValue(v)
	}
	return strings.Join(s, ", ")
}

// EvidenceValue is a check's number as people read it: a …_unix value
// (seconds since the Unix epoch) as a UTC time, 2026-12-01T02:07:11Z,
// rather than 1.796e+09; any other as Num.
func EvidenceValue(v checks.Value) string {
	if strings.HasSuffix(v.Name, "_unix") && !math.IsNaN(v.Value) && !math.IsInf(v.Value, 0) {
		return time.Unix(int64(v.Value), 0).UTC().Format(time.RFC3339)
	}
	return Num(v.Value)
}

// statusMark is a check status as a GitHub summary shows it.
func statusMark(s checks.Status) string {
	switch s {
	case checks.Fail:
		return "❌ fail"
	case checks.Warn:
		return "⚠️ warn"
	case checks.OK:
		return "✅ ok"
	}
	return "➖ " + string(s)
}

// CheckGitHub writes the checks as a GitHub Actions job summary
// (markdown for $GITHUB_STEP_SUMMARY): a heading with the verdict, then a
// table of every check with a status mark, its evidence and its meaning.
func CheckGitHub(w io.Writer, d *CheckDoc) error {
	failed, warned := FailedChecks(d.Report), 0
	for _, c := range d.Checks {
		if c.Status == checks.Warn {
			warned++
		}
	}
	head := "✅ every check passed"
	switch {
	case len(failed) > 0:
		head = fmt.Sprintf("❌ %d of %d checks failed: %s", len(failed), len(d.Checks), strings.Join(failed, ", "))
	case warned > 0:
		head = fmt.Sprintf("⚠️ no check failed, %d warned", warned)
	}
	fmt.Fprintf(w, "### ldanalyze check: %s\n\n%d rows of %s.\n\n", head, d.Input.Rows, codeList(d.Input.Files))
	g := &render.Grid{Header: []string{"status", "check", "evidence", "meaning"}}
	for _, c := range d.Checks {
		g.Rows = append(g.Rows, []string{statusMark(c.Status), string(c.ID), evidenceText(c.Evidence), c.Message})
	}
	return g.Write(w, render.Markdown)
}

// codeList is files as markdown code spans, comma-separated.
func codeList(files []string) string {
	s := make([]string, len(files))
	for i, f := range files {
		s[i] = "`" + strings.ReplaceAll(f, "`", "'") + "`"
	}
	return strings.Join(s, ", ")
}

// KneeGitHub writes the knee analysis as a GitHub Actions job summary: a
// heading, the knee, ceiling and SLO in words, the validity checks that
// did not pass, and the levels table folded under a <details>.
func KneeGitHub(w io.Writer, rep *KneeDoc, pcts []float64) error {
	r := rep.Result
	var b strings.Builder
	mark := "✅"
	for _, c := range rep.Checks {
		if c.Status == checks.Fail {
			mark = "❌"
			break
		} else if c.Status == checks.Warn {
			mark = "⚠️"
		}
	}
	fmt.Fprintf(&b, "### %s ldanalyze knee: %s\n\n", mark, codeList(rep.Input.Files))
	fmt.Fprintf(&b, "%s model (%s); %d samples of %s.\n\n", r.Model, render.MarkdownProse(r.ModelEvidence), r.Overall.Count, render.MarkdownEscape(r.Metric))
	if r.Levels != "none" {
		var f strings.Builder
		Findings(&f, r)
		for _, line := range strings.Split(strings.TrimSpace(f.String()), "\n") {
			fmt.Fprintf(&b, "- %s\n", render.MarkdownProse(strings.TrimSpace(line)))
		}
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "- warning: %s\n", render.MarkdownProse(wn.Message))
	}
	for _, c := range rep.Checks {
		if c.Status == checks.Warn || c.Status == checks.Fail {
			fmt.Fprintf(&b, "- %s **%s**: %s\n", statusMark(c.Status), c.ID, render.MarkdownProse(c.Message))
		}
	}
	levels, noun := r.Holds, "holds"
	if r.Levels == "ramp" {
		levels, noun = r.RampSteps, "ramp steps"
	}
	if len(levels) > 0 {
		fmt.Fprintf(&b, "\n<details><summary>%d %s</summary>\n\n", len(levels), noun)
		if err := flush(w, &b); err != nil {
			return err
		}
		if err := LevelGrid(levels, r, pcts, false).Write(w, render.Markdown); err != nil {
			return err
		}
		b.WriteString("\n</details>\n")
	}
	return flush(w, &b)
}

// CompareGitHub writes comparisons (one, or one per pair of runs of two
// suites) as a GitHub Actions job summary: a heading that counts the
// significant regressions and improvements, the knee and ceiling of
// each pair, the table with each significant change marked, and its
// notes.
func CompareGitHub(w io.Writer, docs []*CompareDoc) error {
	better, worse := 0, 0
	g, notes := CompareGrid(docs, false)
	g.Header = append([]string{""}, g.Header...)
	i := 0
	for _, d := range docs {
		for _, r := range d.Rows {
			m := ""
			if r.Significant {
				if r.Better {
					m, better = "✅", better+1
				} else {
					m, worse = "❌", worse+1
				}
			}
			g.Rows[i] = append([]string{m}, g.Rows[i]...)
			i++
		}
	}
	head := "✅ no significant regression"
	if worse > 0 {
		head = fmt.Sprintf("❌ %d significant regression(s)", worse)
	}
	fmt.Fprintf(w, "### ldanalyze compare %s → %s: %s, %d improvement(s)\n\n", docs[0].Before, docs[0].After, head, better)
	for _, d := range docs {
		prefix := ""
		if d.Run != "" {
			prefix = d.Run + ": "
		}
		for _, s := range CompareFindings(d) {
			fmt.Fprintf(w, "- %s%s\n", render.MarkdownEscape(prefix), render.MarkdownProse(s))
		}
		for _, s := range d.Warnings {
			fmt.Fprintf(w, "- warning: %s%s\n", render.MarkdownEscape(prefix), render.MarkdownProse(s))
		}
	}
	fmt.Fprintln(w)
	if err := g.Write(w, render.Markdown); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for i, n := range notes {
		fmt.Fprintf(w, "- [%d] %s\n", i+1, render.MarkdownProse(n))
	}
	_, err := fmt.Fprintf(w, "- %s\n", CompareMethods(docs[0].Result, docs[0].Labels()))
	return err
}
