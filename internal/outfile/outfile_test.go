package outfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ls lists the names in dir, sorted (temporary files included).
func ls(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	slices.Sort(out)
	return out
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCreateMissingDir: a new file in missing directories is written
// there on Commit, with the mode os.Create gives (umask applied); before
// Commit only the temporary file exists.
func TestCreateMissingDir(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "a", "b", "out.md")
	f, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, "# report\n"); err != nil {
		t.Fatal(err)
	}
	if got := ls(t, filepath.Dir(path)); len(got) != 1 || !strings.HasPrefix(got[0], ".out.md.ldanalyze-") || !strings.HasSuffix(got[0], ".tmp") {
		t.Errorf("before Commit: %q, want one temporary file", got)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := ls(t, filepath.Dir(path)); !slices.Equal(got, []string{"out.md"}) {
		t.Errorf("after Commit: %q", got)
	}
	if got := read(t, path); got != "# report\n" {
		t.Errorf("content %q", got)
	}
	ref, err := os.Create(filepath.Join(root, "ref"))
	if err != nil {
		t.Fatal(err)
	}
	ref.Close()
	ri, _ := os.Stat(filepath.Join(root, "ref"))
	fi, _ := os.Stat(path)
	if fi.Mode() != ri.Mode() {
		t.Errorf("mode %v, want %v as os.Create", fi.Mode(), ri.Mode())
	}
	f.Abort() // after Commit: nothing happens
	if got := read(t, path); got != "# report\n" {
		t.Errorf("Abort after Commit changed the file: %q", got)
	}
}

// TestReplaceKeepsMode: an existing file is replaced whole and keeps its
// permission bits.
func TestReplaceKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	write(t, path, "old content that is longer\n")
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, Options{}, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != "new\n" {
		t.Errorf("content %q", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}
	if got := ls(t, dir); !slices.Equal(got, []string{"out.csv"}) {
		t.Errorf("dir %q", got)
	}
}

// TestAbortLeavesPrevious: a failed write leaves the previous file as it
// was, no temporary file, and removes the directories it created.
func TestAbortLeavesPrevious(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	write(t, path, "previous\n")
	boom := errors.New("analysis failed")
	err := WriteFile(path, Options{}, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if err != boom {
		t.Errorf("error %v, want the write's", err)
	}
	if got := read(t, path); got != "previous\n" {
		t.Errorf("content %q, want the previous", got)
	}
	if got := ls(t, dir); !slices.Equal(got, []string{"out.csv"}) {
		t.Errorf("dir %q", got)
	}
	deep := filepath.Join(dir, "new", "sub", "r.md")
	f, err := Create(deep, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.Abort()
	if got := ls(t, dir); !slices.Equal(got, []string{"out.csv"}) {
		t.Errorf("after Abort of %s: %q, want the created directories gone", deep, got)
	}
	if err := f.Commit(); err == nil {
		t.Error("Commit after Abort succeeded")
	}
}

// TestRefusals: exact errors for an output that is an input (by name,
// through a hard link, through a symbolic link), a symbolic link as
// target, a dangling link and a directory; the inputs stay intact.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "run.csv")
	write(t, in, "k6 data\n")
	hard := filepath.Join(dir, "hard.csv")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink("run.csv", link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling.md")
	if err := os.Symlink("nowhere.md", dangling); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		out    string
		inputs []string
		want   string
	}{
		{in, []string{"-", in}, "output " + in + " is also an input: refusing to replace the data it is read from; write the output to another file"},
		{hard, []string{in}, "output " + hard + " is the same file as the input " + in + ": refusing to replace the data it is read from; write the output to another file"},
		{in, []string{link}, "output " + in + " is the same file as the input " + link + ": refusing to replace the data it is read from; write the output to another file"},
		{link, nil, link + " is a symbolic link to run.csv (a file): refusing to write through it or replace it; give run.csv itself to replace that file"},
		{dangling, nil, dangling + " is a symbolic link to nowhere.md, which does not exist: refusing to write through it; give the path to write itself"},
		{dir, nil, dir + " is a directory: want a file name"},
	} {
		err := Check(tc.out, Options{Inputs: tc.inputs})
		if err == nil || err.Error() != tc.want {
			t.Errorf("Check(%s, %q)\n got %v\nwant %s", tc.out, tc.inputs, err, tc.want)
		}
		if _, err := Create(tc.out, Options{Inputs: tc.inputs}); err == nil || err.Error() != tc.want {
			t.Errorf("Create(%s): %v", tc.out, err)
		}
	}
	if got := read(t, in); got != "k6 data\n" {
		t.Errorf("input changed: %q", got)
	}
	if got := ls(t, dir); !slices.Equal(got, []string{"dangling.md", "hard.csv", "link.csv", "run.csv"}) {
		t.Errorf("dir %q", got)
	}
}

// TestCommitRechecks: an output that became the input between Create and
// Commit (the input given as -o is created by another program meanwhile)
// is refused at Commit, and the target keeps its content.
func TestCommitRechecks(t *testing.T) {
	dir := t.TempDir()
	out, in := filepath.Join(dir, "out"), filepath.Join(dir, "in")
	f, err := Create(out, Options{Inputs: []string{in}})
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "result")
	write(t, in, "data")
	if err := os.Link(in, out); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err == nil || !strings.Contains(err.Error(), "is the same file as the input") {
		t.Errorf("Commit: %v", err)
	}
	if got := read(t, in); got != "data" {
		t.Errorf("input %q", got)
	}
	if got := ls(t, dir); !slices.Equal(got, []string{"in", "out"}) {
		t.Errorf("dir %q", got)
	}
}

// TestStream: a device (also through a symbolic link) is written
// directly, with no temporary file beside it.
func TestStream(t *testing.T) {
	link := filepath.Join(t.TempDir(), "null")
	if err := os.Symlink(os.DevNull, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{os.DevNull, link} {
		f, err := Create(p, Options{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if f.TempName() != "" {
			t.Errorf("%s: temporary file %s", p, f.TempName())
		}
		if _, err := io.WriteString(f, "x"); err != nil {
			t.Fatal(err)
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
		t.Errorf("%s: %v, %v", os.DevNull, fi.Mode(), err)
	}
}

// TestSet: Commit puts every file in place; Abort (as on a signal)
// removes every temporary file, and later Create and Commit fail.
func TestSet(t *testing.T) {
	dir := t.TempDir()
	var s Set
	for _, n := range []string{"r.md", "r-load.png"} {
		f, err := s.Create(filepath.Join(dir, n), Options{})
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(f, n)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := ls(t, dir); !slices.Equal(got, []string{"r-load.png", "r.md"}) || read(t, filepath.Join(dir, "r.md")) != "r.md" {
		t.Errorf("after Commit: %q", got)
	}

	var a Set
	f, err := a.Create(filepath.Join(dir, "r.md"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "interrupted")
	a.Abort()
	if got := ls(t, dir); !slices.Equal(got, []string{"r-load.png", "r.md"}) || read(t, filepath.Join(dir, "r.md")) != "r.md" {
		t.Errorf("after Abort: %q", got)
	}
	if _, err := a.Create(filepath.Join(dir, "x"), Options{}); err != ErrAborted {
		t.Errorf("Create after Abort: %v", err)
	}
	if err := a.Commit(); err != ErrAborted {
		t.Errorf("Commit after Abort: %v", err)
	}
	if err := f.Commit(); err != ErrAborted {
		t.Errorf("File.Commit after Abort: %v", err)
	}
}

// TestSetWriteFile: WriteFile's file is put in place by Commit; a
// failed write abandons its file and names the path, and the set then
// fails to commit.
func TestSetWriteFile(t *testing.T) {
	dir := t.TempDir()
	var s Set
	if err := s.WriteFile(filepath.Join(dir, "ok.md"), Options{}, func(w io.Writer) error { _, err := io.WriteString(w, "ok"); return err }); err != nil {
		t.Fatal(err)
	}
	if got := ls(t, dir); len(got) != 1 || !strings.HasSuffix(got[0], ".tmp") {
		t.Fatalf("before Commit: %q, want the temporary file", got)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := ls(t, dir); !slices.Equal(got, []string{"ok.md"}) || read(t, filepath.Join(dir, "ok.md")) != "ok" {
		t.Errorf("after Commit: %q", got)
	}
	var f Set
	boom := errors.New("boom")
	bad := filepath.Join(dir, "bad.md")
	err := f.WriteFile(bad, Options{}, func(w io.Writer) error { io.WriteString(w, "half"); return boom })
	if !errors.Is(err, boom) || err.Error() != "writing "+bad+": boom" {
		t.Errorf("failed write: %v", err)
	}
	if err := f.Commit(); err == nil || err.Error() != bad+": not written (abandoned)" {
		t.Errorf("Commit after a failed write: %v", err)
	}
	if got := ls(t, dir); !slices.Equal(got, []string{"ok.md"}) {
		t.Errorf("after the failed write: %q", got)
	}
}

// TestDistinct: two outputs that are one file, however spelled (the same
// path, ./X and X, a/../X, a link to the directory, a link to the other
// output, existing or not), are refused naming both flags; different
// files, "" and "-" pass.
func TestDistinct(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write(t, "exists.md", "old")
	if err := os.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", "linkdir"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("exists.md", "tofile"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("new.md", "dangling"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a, b string
		want string
	}{
		{"r.md", "r.md", "-o and --html name the same file: give each output its own path"},
		{"./r.md", "r.md", "-o and --html name the same file (./r.md and r.md): give each output its own path"},
		{"sub/../r.md", "r.md", "-o and --html name the same file (sub/../r.md and r.md): give each output its own path"},
		{"exists.md", "./exists.md", "-o and --html name the same file (exists.md and ./exists.md): give each output its own path"},
		{"linkdir/r.md", "sub/r.md", "-o and --html name the same file (linkdir/r.md and sub/r.md): give each output its own path"},
		{"tofile", "exists.md", "-o and --html name the same file (tofile and exists.md): give each output its own path"},
		{"dangling", "new.md", "-o and --html name the same file (dangling and new.md): give each output its own path"},
		{filepath.Join(dir, "r.md"), "r.md", "-o and --html name the same file (" + filepath.Join(dir, "r.md") + " and r.md): give each output its own path"},
		{"r.md", "r.html", ""},
		{"-", "-", ""},
		{"", "", ""},
	} {
		err := Distinct(Output{"-o", c.a}, Output{"--html", c.b})
		if got := fmt.Sprint(err); (err == nil) != (c.want == "") || err != nil && got != c.want {
			t.Errorf("%s, %s: got %v, want %q", c.a, c.b, err, c.want)
		}
	}
}

// TestSetRefusesDuplicate: a Set refuses to create a second output that
// is the same file as one it holds, and writes nothing.
func TestSetRefusesDuplicate(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	var s Set
	if err := s.WriteFile("r.md", Options{}, func(w io.Writer) error { _, err := io.WriteString(w, "a"); return err }); err != nil {
		t.Fatal(err)
	}
	_, err := s.Create("./r.md", Options{})
	if want := "r.md and ./r.md are the same file: refusing to write one output over another; give each output its own path"; fmt.Sprint(err) != want {
		t.Fatalf("got %v, want %q", err, want)
	}
	s.Abort()
	if got := ls(t, dir); len(got) != 0 {
		t.Errorf("left %v", got)
	}
}
