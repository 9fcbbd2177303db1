// Package outfile writes the files a command produces so that nothing is
// lost: an output is written to a temporary file in its target's directory
// and renamed over the target only when the command succeeded, so a failed
// or interrupted command leaves the previous file (if any) as it was and no
// partial or empty file behind.
//
// The rules, chosen after what users of `curl -o` and `go build -o` expect:
//
//   - A missing target is created, with its missing directories (as
//     `mkdir -p`, with the umask applied); directories created for an output
//     that is then abandoned are removed again when empty.
//   - An existing regular file is replaced, as `go build -o` and an editor's
//     save do: atomically (rename), keeping the old file's permission bits.
//     Other hard links to it keep the old content.
//   - An output that is one of the inputs (the same file by os.SameFile,
//     also through a link or another name) is refused, naming both; the
//     input is not touched.
//   - A target that is a symbolic link to a regular file, a directory or
//     nothing (a dangling link) is refused, naming where it points:
//     replacing the link would silently turn it into a file, and writing
//     through it would write somewhere the command line does not say. Give
//     the link's target itself to replace that file. Directories on the way
//     to the target may be links.
//   - A target that is not a regular file (a device such as /dev/null, a
//     named pipe, a terminal, also through a link such as /dev/stdout) is a
//     stream: it is written directly, as curl does, since it cannot be
//     replaced.
//   - A directory as target is refused.
//   - Two outputs of one command that are the same file (the same path,
//     also spelled differently, such as ./X and X, or through a symbolic
//     link to a directory or to the other output) are refused before
//     anything is written (Distinct), and a Set refuses to create an
//     output it already holds.
//
// Temporary files are named .NAME.ldanalyze-RANDOM.tmp beside the target.
// They are removed on every error and, through Set.Abort, on SIGINT and
// SIGTERM; only a kill that cannot be caught (SIGKILL, a power cut) leaves
// one, which is then safe to delete. A committed file is synced to disk
// before the rename, so a crash leaves either the old or the new content.
package outfile

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Options configure Create and Check. The zero value works.
type Options struct {
	// Inputs are the files the command reads. An output that is one of
	// them is refused. "-", "" and names that do not exist are ignored.
	Inputs []string
	// Perm is the permission of a new file, before the umask; 0 means
	// 0o666 (as os.Create). A replaced file keeps its own permission bits.
	Perm fs.FileMode
}

// ErrAborted is returned by Set.Create, and by Commit of a file of the set,
// after Set.Abort: the command was interrupted.
var ErrAborted = errors.New("outfile: the outputs were abandoned (interrupted)")

// kind is what a target path is.
type kind int

const (
	missing kind = iota // nothing there yet
	regular             // a regular file, replaced by rename
	stream              // a device, pipe or socket, written directly
)

// Check reports whether path may be written as an output with opt: it
// returns the error Create would return for the target itself (one of the
// inputs, a symbolic link, a directory), without creating anything. Call
// it before a long analysis so that a bad -o fails at once.
func Check(path string, opt Options) error {
	_, _, err := inspect(path, opt.Inputs)
	return err
}

// inspect classifies path and checks it against the rules.
func inspect(path string, inputs []string) (kind, fs.FileInfo, error) {
	if path == "" {
		return 0, nil, errors.New("outfile: empty output path")
	}
	li, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return missing, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	fi := li
	if li.Mode()&fs.ModeSymlink != 0 {
		dest, _ := os.Readlink(path)
		fi, err = os.Stat(path)
		switch {
		case err != nil:
			return 0, nil, fmt.Errorf("%s is a symbolic link to %s, which does not exist: refusing to write through it; give the path to write itself", path, dest)
		case fi.Mode().IsRegular() || fi.IsDir():
			what := "a file"
			if fi.IsDir() {
				what = "a directory"
			}
			return 0, nil, fmt.Errorf("%s is a symbolic link to %s (%s): refusing to write through it or replace it; give %s itself to replace that file", path, dest, what, dest)
		}
	}
	if fi.IsDir() {
		return 0, nil, fmt.Errorf("%s is a directory: want a file name", path)
	}
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		if ii, err := os.Stat(in); err == nil && os.SameFile(fi, ii) {
			if filepath.Clean(in) == filepath.Clean(path) {
				return 0, nil, fmt.Errorf("output %s is also an input: refusing to replace the data it is read from; write the output to another file", path)
			}
			return 0, nil, fmt.Errorf("output %s is the same file as the input %s: refusing to replace the data it is read from; write the output to another file", path, in)
		}
	}
	if !fi.Mode().IsRegular() {
		return stream, fi, nil
	}
	return regular, fi, nil
}

// File is an output being written. Write to it, then Commit to put it in
// place, or Abort to drop it; calling Abort after Commit does nothing, so
// `defer f.Abort()` is the idiom. A File is not safe for concurrent use,
// except that its Set may abort it at any time.
type File struct {
	path string
	opt  Options
	kind kind
	mode fs.FileMode // the replaced file's permission bits
	tmp  string      // temporary file; "" for a stream
	f    *os.File
	bw   *bufio.Writer
	dirs []string // directories created for the file, deepest first
	// mu guards f, done and the temporary file against a concurrent
	// Set.Abort.
	mu     sync.Mutex
	done   bool // committed or aborted
	closed bool // f closed
	err    error
}

// Create starts writing the output path (see the package doc for what is
// refused). The data goes to a temporary file beside path until Commit.
func Create(path string, opt Options) (*File, error) {
	k, fi, err := inspect(path, opt.Inputs)
	if err != nil {
		return nil, err
	}
	f := &File{path: path, opt: opt, kind: k}
	if k == stream {
		if f.f, err = os.OpenFile(path, os.O_WRONLY, 0); err != nil {
			return nil, err
		}
		f.bw = bufio.NewWriterSize(f.f, 64<<10)
		return f, nil
	}
	if fi != nil {
		f.mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if f.dirs, err = mkdirAll(dir); err != nil {
		return nil, err
	}
	perm := opt.Perm
	if perm == 0 {
		perm = 0o666
	}
	for range 10 {
		var b [6]byte
		_, _ = rand.Read(b[:])
		name := filepath.Join(dir, "."+filepath.Base(path)+".ldanalyze-"+hex.EncodeToString(b[:])+".tmp")
		f.f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if err == nil {
			f.tmp = name
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		removeDirs(f.dirs)
		return nil, fmt.Errorf("creating %s: %w", path, err)
	}
	f.bw = bufio.NewWriterSize(f.f, 64<<10)
	return f, nil
}

// mkdirAll creates dir and its missing parents and returns the ones it
// created, deepest first.
func mkdirAll(dir string) ([]string, error) {
	var made []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		made = append(made, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if len(made) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("creating the directory of %s: %w", dir, err)
	}
	return made, nil
}

// removeDirs removes the directories made for an abandoned file, deepest
// first, as long as they are empty.
func removeDirs(dirs []string) {
	for _, d := range dirs {
		if os.Remove(d) != nil {
			return
		}
	}
}

// Name returns the target path, as given to Create.
func (f *File) Name() string { return f.path }

// TempName returns the temporary file the data goes to until Commit, for
// a caller that reads it back after Close (convert counts the rows it
// wrote); "" when the target is a stream written directly.
func (f *File) TempName() string { return f.tmp }

// Write writes p to the output. Errors name the target.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.bw.Write(p)
	if err != nil {
		f.err = fmt.Errorf("writing %s: %w", f.path, err)
	}
	return n, f.err
}

// Close ends the writing: the data is flushed and the temporary file
// closed, but kept until Commit (or Abort). It returns the first write
// error, naming the target. Closing twice returns the same error.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closeLocked()
}

func (f *File) closeLocked() error {
	if f.closed {
		return f.err
	}
	f.closed = true
	if f.done {
		return f.err
	}
	if f.err == nil {
		if err := f.bw.Flush(); err != nil {
			f.err = fmt.Errorf("writing %s: %w", f.path, err)
		}
	}
	if f.err == nil && f.kind != stream {
		if err := f.f.Sync(); err != nil {
			f.err = fmt.Errorf("writing %s: %w", f.path, err)
		}
	}
	if err := f.f.Close(); err != nil && f.err == nil {
		f.err = fmt.Errorf("writing %s: %w", f.path, err)
	}
	return f.err
}

// Commit closes the file if needed and puts it in place: the temporary
// file is renamed over the target (the checks of Create are made again,
// since the target may have changed meanwhile). On any error the
// temporary file is removed and the target left as it was.
func (f *File) Commit() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return f.err
	}
	err := f.closeLocked()
	if err == nil && f.kind != stream {
		err = f.rename()
	}
	if err != nil {
		f.abortLocked(err)
		return err
	}
	f.done = true
	return nil
}

// rename moves the closed temporary file over the target.
func (f *File) rename() error {
	k, fi, err := inspect(f.path, f.opt.Inputs)
	if err != nil {
		return err
	}
	mode := f.mode
	switch {
	case k == regular:
		mode = fi.Mode().Perm()
	case k == stream:
		return fmt.Errorf("%s became a device or pipe while it was written: not replacing it", f.path)
	}
	if mode != 0 {
		if err := os.Chmod(f.tmp, mode); err != nil {
			return fmt.Errorf("writing %s: %w", f.path, err)
		}
	}
	if err := os.Rename(f.tmp, f.path); err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	f.tmp = ""
	syncDir(filepath.Dir(f.path))
	return nil
}

// syncDir makes a rename in dir durable where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Abort drops the output: the temporary file is closed and removed (and
// the directories created for it, when empty); the target is untouched.
// It does nothing after Commit.
func (f *File) Abort() { f.abort(nil) }

// abort is Abort with the error later calls return (nil: a generic one).
func (f *File) abort(why error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.done {
		f.abortLocked(why)
	}
}

func (f *File) abortLocked(why error) {
	f.done = true
	if !f.closed {
		f.closed = true
		f.f.Close()
	}
	if f.tmp != "" {
		os.Remove(f.tmp)
		f.tmp = ""
		removeDirs(f.dirs)
	}
	switch {
	case why != nil:
		f.err = why
	case f.err == nil:
		f.err = fmt.Errorf("%s: not written (abandoned)", f.path)
	}
}

// WriteFile writes the output path with write and commits it when write
// and the writing succeed; otherwise nothing changes on disk.
func WriteFile(path string, opt Options, write func(w io.Writer) error) error {
	f, err := Create(path, opt)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return err
	}
	return f.Commit()
}

// Set is the outputs of one command: each is created with Set.Create,
// written and closed, and Commit puts them all in place once the command
// succeeded, while Abort (on an error, or from a signal handler) removes
// every temporary file. A Set is safe for concurrent use. Its zero value
// is ready to use.
type Set struct {
	mu      sync.Mutex
	files   []*File
	keys    map[string]string // same-file key → the path as given
	aborted bool
}

// Create starts writing an output of the set (see the package Create). It
// returns ErrAborted after Abort.
func (s *Set) Create(path string, opt Options) (*File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.aborted {
		return nil, ErrAborted
	}
	k := sameFileKey(path)
	if prev, ok := s.keys[k]; ok {
		return nil, fmt.Errorf("%s and %s are the same file: refusing to write one output over another; give each output its own path", prev, path)
	}
	f, err := Create(path, opt)
	if err != nil {
		return nil, err
	}
	if s.keys == nil {
		s.keys = map[string]string{}
	}
	s.keys[k] = path
	s.files = append(s.files, f)
	return f, nil
}

// Commit commits every file of the set, in the order they were created,
// and returns the first error; the files after a failed one are aborted,
// so that either all of them are replaced or the first failure is
// reported and the rest left as they were.
func (s *Set) Commit() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.aborted {
		return ErrAborted
	}
	files := s.files
	s.files = nil
	for i, f := range files {
		if err := f.Commit(); err != nil {
			for _, g := range files[i+1:] {
				g.Abort()
			}
			return err
		}
	}
	return nil
}

// Abort abandons every file of the set not yet committed (their
// temporary files are removed) and makes later Create and Commit calls
// fail with ErrAborted. It may be called more than once, from any
// goroutine.
func (s *Set) Abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.aborted = true
	for _, f := range s.files {
		f.abort(ErrAborted)
	}
	s.files = nil
}

// WriteFile writes the output path of the set with write and closes it;
// the file is put in place by the set's Commit. When write fails the file
// is abandoned and the error names the path.
func (s *Set) WriteFile(path string, opt Options, write func(w io.Writer) error) error {
	f, err := s.Create(path, opt)
	if err != nil {
		return err
	}
	werr := write(f)
	if err := f.Close(); err != nil {
		return err
	}
	if werr != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	return nil
}

// Output is one output a command is asked to write: the flag that names
// it (for messages, "-o" or "--html") and its path.
type Output struct {
	Flag, Path string
}

// Distinct returns an error naming both flags when two of outs are the
// same file: the same path, the same path spelled differently (./X and X,
// a/../X), through a symbolic link to a directory on the way, or a
// symbolic link to the other output. Outputs with the path "" or "-"
// (standard output) are ignored. Call it before any analysis, so that
// nothing is written.
func Distinct(outs ...Output) error {
	seen := map[string]Output{}
	for _, o := range outs {
		if o.Path == "" || o.Path == "-" {
			continue
		}
		k := sameFileKey(o.Path)
		if prev, ok := seen[k]; ok {
			what := "name the same file"
			if prev.Path != o.Path {
				what = fmt.Sprintf("name the same file (%s and %s)", prev.Path, o.Path)
			}
			return fmt.Errorf("%s and %s %s: give each output its own path", prev.Flag, o.Flag, what)
		}
		seen[k] = o
	}
	return nil
}

// sameFileKey is a name of the file path denotes that two spellings of
// one file share: the absolute path with symbolic links resolved (of the
// directory when the file itself does not exist; one level of a dangling
// link), or, for an existing file, its device and inode.
func sameFileKey(path string) string {
	if fi, err := os.Stat(path); err == nil {
		if id, ok := fileID(fi); ok {
			return id
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if dest, err := os.Readlink(abs); err == nil {
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(abs), dest)
		}
		abs = dest
	}
	dir, base := filepath.Split(abs)
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	return filepath.Join(dir, base)
}
