package cliapp

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Version is what `ldanalyze --version` prints after the name: the module
// version (a release tag, or the pseudo-version Go stamps from the
// checkout; "devel" for `go run`), then the VCS revision and commit time,
// "modified" when the checkout had uncommitted changes, and the Go version
// and platform, from the build information Go embeds in the binary
// (runtime/debug.ReadBuildInfo). override, when not empty, replaces the
// module version (a release build sets it with -ldflags -X).
func Version(override string) string {
	v := override
	var details []string
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = bi.Main.Version
		}
		var rev, at, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" {
			details = append(details, "revision "+rev[:min(len(rev), 12)])
		}
		if at != "" {
			details = append(details, at)
		}
		if modified == "true" {
			details = append(details, "modified")
		}
	}
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	details = append(details, runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH)
	return v + " (" + strings.Join(details, ", ") + ")"
}
