package main

import (
	"encoding/xml"
	"strings"
	"testing"
)

// TestCheckJUnit: check --format junit is JUnit XML that encoding/xml reads
// back: one test case per check, the failed checks as <failure> with their
// message and evidence, n/a as <skipped>; the exit code still gates (1).
// The gRPC ramp fails dropped-iterations (1,268, in stall bursts), checks
// and errors (a flat 5 % NotFound at every load: not a test past its
// knee) and has no generator data nor thresholds (n/a).
func TestCheckJUnit(t *testing.T) {
	out, _, code := runCLI(t, "", "check", "--format", "junit", "../../testdata/k6-v2/grpc_ramp.csv.gz")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (failed checks)", code)
	}
	if !strings.HasPrefix(out, xml.Header) {
		t.Errorf("no XML declaration: %.60q", out)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Body    string `xml:",chardata"`
				} `xml:"failure"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	if len(doc.Suites) != 1 || doc.Tests != len(doc.Suites[0].Cases) || doc.Tests < 10 {
		t.Fatalf("%d suites, tests=%d", len(doc.Suites), doc.Tests)
	}
	var failed, skipped []string
	for _, c := range doc.Suites[0].Cases {
		if c.Failure != nil {
			failed = append(failed, c.Name)
			if c.Failure.Message == "" || !strings.HasPrefix(c.Failure.Body, "evidence: ") {
				t.Errorf("%s: failure without message or evidence: %+v", c.Name, c.Failure)
			}
		}
		if c.Skipped != nil {
			skipped = append(skipped, c.Name)
		}
	}
	if got := strings.Join(failed, ","); got != "dropped-iterations,checks,errors" || doc.Failures != 3 {
		t.Errorf("failures %q (%d), want dropped-iterations,checks,errors", got, doc.Failures)
	}
	if got := strings.Join(skipped, ","); got != "generator,thresholds" || doc.Skipped != 2 {
		t.Errorf("skipped %q (%d), want generator,thresholds (no --prom, no --threshold)", got, doc.Skipped)
	}
}

// TestGitHubSummaries: --format github is markdown for a job summary with
// the verdict in its heading, for check, knee and compare; other commands
// refuse it.
func TestGitHubSummaries(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		head string
	}{
		{[]string{"check", "--format", "github", "../../testdata/k6-v2/grpc_ramp.csv.gz"}, 1, "### ldanalyze check: ❌ 3 of 14 checks failed: dropped-iterations, checks, errors\n"},
		{[]string{"check", "--format", "github", td + "closed_ramp.csv.gz"}, 0, "### ldanalyze check: ⚠️ "},
		{[]string{"knee", "--format", "github", td + "breakpoint.csv.gz"}, 0, "### ⚠️ ldanalyze knee: `../../testdata/k6/breakpoint.csv.gz`\n"},
		{[]string{"compare", "--format", "github", "before=" + td + "open_ramp.csv.gz", "after=" + td + "breakpoint.csv.gz"}, 0, "### ldanalyze compare before → after: "},
	} {
		out, errOut, code := runCLI(t, "", c.args...)
		if code != c.code || !strings.HasPrefix(out, c.head) || !strings.Contains(out, "\n| --- |") {
			t.Errorf("%q: exit %d (want %d), stderr %q\n%s", c.args, code, c.code, errOut, out)
		}
	}
	// A check's message keeps its command as a code span: escaped, it
	// showed as \`ldanalyze check --threshold EXPR\` on GitHub.
	if out, _, _ := runCLI(t, "", "knee", "--format", "github", td+"breakpoint.csv.gz"); !strings.Contains(out, " with `ldanalyze check --threshold EXPR`.\n") {
		t.Errorf("knee --format github: the summary-vs-knee message lost its code span:\n%s", out)
	}
	if _, errOut, code := runCLI(t, "", "summary", "--format", "github", td+"breakpoint.summary.json"); code != 2 || !strings.Contains(errOut, `unknown --format "github"`) {
		t.Errorf("summary --format github: exit %d, %q", code, errOut)
	}
}

// TestKneeWindows: --windows adds the table of the 30 s windows to the
// text; breakpoint.csv.gz spans 131 s, so 5 epoch-aligned windows, the
// first starting 9 s before the run.
func TestKneeWindows(t *testing.T) {
	out, errOut, code := runCLI(t, "", "knee", "--windows", td+"breakpoint.csv.gz")
	if code != 0 {
		t.Fatal(errOut)
	}
	_, table, ok := strings.Cut(out, "\nWindows of 30s")
	if !ok || strings.Count(table, "\n│") != 6 || !strings.Contains(table, " -9s │ 21 │") {
		t.Errorf("no windows table of 5 windows:\n%s", out)
	}
}

// TestCostPriceList: cost --region without --usage lists the region's
// prices with status, source and date, and the regions covered; the
// worked example priced in a region without its EC2 price names the
// regions that have it.
func TestCostPriceList(t *testing.T) {
	out, errOut, code := runCLI(t, "", "cost", "--region", "us-west-2")
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"AWS on-demand prices for us-west-2 (US West (Oregon))", "nlb.nlcu_hour", "t3.xlarge", "Regions covered", "eu-west-1"} {
		if !strings.Contains(out, want) {
			t.Errorf("price list lacks %q", want)
		}
	}
	out, _, code = runCLI(t, "", "cost", "--region", "us-west-2", "--format", "json")
	if code != 0 || !strings.Contains(out, `"key": "nlb.nlcu_hour"`) || !strings.Contains(out, `"price_usd": 0.006`) {
		t.Errorf("JSON price list: exit %d\n%.400s", code, out)
	}
	_, errOut, code = runCLI(t, "", "cost", "--usage", costTD+"worked-example.yaml", "--region", "eu-west-1")
	if code != 2 || !strings.Contains(errOut, `item "compute": no EC2 price for t3.xlarge in eu-west-1`) || !strings.Contains(errOut, "the catalogue prices t3.xlarge in us-east-1, us-east-2, us-west-2") {
		t.Errorf("exit %d, %q", code, errOut)
	}
	_, errOut, code = runCLI(t, "", "cost", "--region", "mars-1")
	if code != 2 || !strings.Contains(errOut, `unknown region "mars-1": want one of [ap-northeast-1`) {
		t.Errorf("unknown region: exit %d, %q", code, errOut)
	}
}
