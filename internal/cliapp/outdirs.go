package cliapp

import (
	"os"

	"github.com/ldanalyze/ldanalyze/internal/outfile"
	"github.com/ldanalyze/ldanalyze/pkg/suite"
)

// OutputNotInDirs refuses, before anything is read, an output path (-o;
// "" and "-" are stdout) that is one of the runs or summaries
// (suite.Discover) held by the directories among args: Inputs lists the
// directories themselves, not the files they hold, so without it
// `suite DIR -o DIR/run.csv` replaced a run with the table. Other files in
// the directories (an earlier table) may be replaced. It returns
// outfile.Check's error, or nil.
func OutputNotInDirs(path string, args []string) error {
	if path == "" || path == "-" {
		return nil
	}
	var dirs []string
	for _, a := range args {
		if fi, err := os.Stat(a); err == nil && fi.IsDir() {
			dirs = append(dirs, a)
		}
	}
	if len(dirs) == 0 {
		return nil
	}
	ins, _, err := suite.Discover(dirs)
	if err != nil {
		return nil // the command reports it when it reads them
	}
	var files []string
	for _, in := range ins {
		files = append(files, in.Path)
		if in.Summary != "" {
			files = append(files, in.Summary)
		}
	}
	return outfile.Check(path, outfile.Options{Inputs: files})
}
