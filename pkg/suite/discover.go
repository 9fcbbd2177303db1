// Package suite lays many runs out as one table, one row per run (and per
// scenario of a run with several): the figures a harness prints after a
// suite of load tests — VUs or rate, requests per second, p50, p95, p99,
// max, errors, the k6 checks' pass rate, the thresholds — with a validity
// verdict from ldanalyze's checks (a run whose checks fail is not a
// result) and, where the run has load levels, its knee and ceiling.
//
// Discover finds the runs and k6 summaries among files and directories;
// RunRows and SummaryRow make the rows of one analysed run or of a
// summary found without its run.
package suite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/summary"
)

// Kind is what an input of a suite is.
type Kind string

// The kinds of inputs.
const (
	// KindRun is a k6 output (CSV, JSON lines, Parquet, Arrow): a sample
	// stream the pipeline analyses.
	KindRun Kind = "run"
	// KindSummary is a k6 end-of-test summary without its run beside it:
	// its own figures make the row.
	KindSummary Kind = "summary"
)

// Input is one row's source.
type Input struct {
	// Path is the file as found (under a directory given, or as given).
	Path string
	Kind Kind
	// Summary is the k6 summary of the same run found beside a KindRun
	// input (same directory, same name stem: run.csv.gz and
	// run.summary.json), "" when none: it gives the row its thresholds.
	Summary string
}

// Skipped is a file of a directory that is not a k6 output or summary:
// its path and why it was left out (in JSON, "path" and "reason", as the
// README's suite document lists them).
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Discover returns the inputs among args: files, and directories walked
// recursively (files in lexical order; hidden files and directories, whose
// names start with '.', left out). A file given by name that is neither a
// k6 output nor a summary is an error naming it; one found in a directory
// is Skipped with the reason. A summary with the name stem of a run in its
// directory is that run's Input.Summary, not an input of its own. It
// returns an error when an argument cannot be read or nothing is found.
func Discover(args []string) ([]Input, []Skipped, error) {
	type found struct {
		path   string
		format ingest.Format
	}
	var all []found
	var skipped []Skipped
	seen := map[string]bool{}
	add := func(path string, named bool) error {
		clean := filepath.Clean(path)
		if seen[clean] {
			return nil
		}
		seen[clean] = true
		f, err := ingest.Detect(path)
		if err == nil && f == ingest.FormatSummary {
			// A JSON object whose first key a summary has: package
			// summary decides.
			_, err = summary.ReadFile(path)
		}
		if err != nil {
			if named {
				return err
			}
			skipped = append(skipped, Skipped{Path: path, Reason: reason(err, path)})
			return nil
		}
		all = append(all, found{path, f})
		return nil
	}
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, nil, err
		}
		if !fi.IsDir() {
			if err := add(a, true); err != nil {
				return nil, nil, err
			}
			continue
		}
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p != a && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			return add(p, false)
		})
		if err != nil {
			return nil, nil, err
		}
	}
	// Pair each summary with the runs of its directory and stem.
	runs := map[string][]int{} // dir + stem → indexes of runs
	var out []Input
	for _, f := range all {
		if f.format != ingest.FormatSummary {
			k := filepath.Join(filepath.Dir(f.path), Stem(f.path))
			runs[k] = append(runs[k], len(out))
			out = append(out, Input{Path: f.path, Kind: KindRun})
		}
	}
	for _, f := range all {
		if f.format != ingest.FormatSummary {
			continue
		}
		k := filepath.Join(filepath.Dir(f.path), Stem(f.path))
		if rs := runs[k]; len(rs) > 0 {
			for _, i := range rs {
				if out[i].Summary == "" || preferSummary(f.path, out[i].Summary) {
					out[i].Summary = f.path
				}
			}
			continue
		}
		out = append(out, Input{Path: f.path, Kind: KindSummary})
	}
	slices.SortStableFunc(out, func(a, b Input) int { return strings.Compare(a.Path, b.Path) })
	if len(out) == 0 {
		return nil, skipped, errors.New("no k6 output or summary among " + strings.Join(args, ", "))
	}
	return out, skipped, nil
}

// preferSummary says whether summary a is a better source of thresholds
// than b for one run: an --summary-export ("summary" in the name) over a
// handleSummary dump, else the first in lexical order.
func preferSummary(a, b string) bool {
	sa, sb := strings.Contains(filepath.Base(a), "handle"), strings.Contains(filepath.Base(b), "handle")
	if sa != sb {
		return sb
	}
	return a < b
}

// reason is why a file of a directory was skipped: its error without
// the file's name.
func reason(err error, path string) string {
	msg := err.Error()
	for _, p := range []string{path + ":1: ", path + ": "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

// compressions and formats are the extensions Stem removes, in that
// order; summarySuffixes the name endings of k6 summaries.
var (
	compressions    = []string{".gz", ".zst", ".zstd"}
	formats         = []string{".csv", ".json", ".jsonl", ".ndjson", ".parquet", ".arrow", ".arrows"}
	summarySuffixes = []string{".summary-export", ".summary_export", ".handle_summary", ".handle-summary", ".summary", "-summary", "_summary"}
)

// Stem is a file's name without its compression, format and summary
// endings, the name a run and its summary share: "open_ramp" for
// open_ramp.csv.gz, open_ramp.json.gz and open_ramp.summary.json.
func Stem(path string) string {
	s := filepath.Base(path)
	for _, group := range [][]string{compressions, formats, summarySuffixes} {
		for _, ext := range group {
			if t, ok := strings.CutSuffix(strings.ToLower(s), ext); ok && t != "" {
				s = s[:len(t)]
				break
			}
		}
	}
	return s
}

// Name is a row's file name relative to the directory it was found in
// (the base of root when the input was a file), for pairing two suites'
// runs: "api/login.csv" under root "before/".
func Name(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(path)
}

// errNotDir is returned by Pair for an argument that is not a directory.
var errNotDir = errors.New("not a directory")

// Pair pairs the inputs found under two directories by Name, in before's
// order: each pair's runs share a relative path, or, failing that, a stem
// (before/api.csv.gz and after/api.json match). Inputs of one side with
// no partner come back in onlyBefore and onlyAfter.
func Pair(beforeDir string, before []Input, afterDir string, after []Input) (pairs [][2]Input, onlyBefore, onlyAfter []Input, err error) {
	for _, d := range []string{beforeDir, afterDir} {
		if fi, err := os.Stat(d); err != nil {
			return nil, nil, nil, err
		} else if !fi.IsDir() {
			return nil, nil, nil, fmt.Errorf("%s: %w", d, errNotDir)
		}
	}
	used := make([]bool, len(after))
	find := func(key func(string, Input) string, b Input) int {
		want := key(beforeDir, b)
		for j, a := range after {
			if !used[j] && a.Kind == b.Kind && key(afterDir, a) == want {
				return j
			}
		}
		return -1
	}
	byName := func(root string, in Input) string { return Name(root, in.Path) }
	byStem := func(root string, in Input) string {
		return filepath.ToSlash(filepath.Join(filepath.Dir(Name(root, in.Path)), Stem(in.Path)))
	}
	matched := make([]int, len(before))
	for i, b := range before {
		matched[i] = find(byName, b)
		if matched[i] >= 0 {
			used[matched[i]] = true
		}
	}
	for i, b := range before {
		if matched[i] < 0 {
			if matched[i] = find(byStem, b); matched[i] >= 0 {
				used[matched[i]] = true
			}
		}
	}
	for i, b := range before {
		if matched[i] < 0 {
			onlyBefore = append(onlyBefore, b)
			continue
		}
		pairs = append(pairs, [2]Input{b, after[matched[i]]})
	}
	for j, a := range after {
		if !used[j] {
			onlyAfter = append(onlyAfter, a)
		}
	}
	return pairs, onlyBefore, onlyAfter, nil
}
