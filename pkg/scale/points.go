package scale

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ldanalyze/ldanalyze/internal/readcap"
)

// MaxPointsBytes bounds a points CSV, bytes: a sweep is tens of lines, so
// a bigger file (or an endless stream such as /dev/zero) is not one.
const MaxPointsBytes = 16 << 20

// Points are (x, y) pairs in base units, gathered from CSV files and "x=y"
// strings. The zero value is empty and ready to use.
type Points struct {
	// XName and YName are the column names from a CSV header, or "".
	XName, YName string
	// X and Y are index-aligned values in XUnit and YUnit.
	X, Y []float64
	// XUnit and YUnit are fixed by the first point added; later points must
	// agree.
	XUnit, YUnit Unit
	// Errors are the malformed CSV lines that were skipped.
	Errors []*SyntaxError
	// Sources say where each point came from, index-aligned with X and
	// Y: "file:line" for ReadCSV, "point x=y" for AddString, "" for Add
	// until its caller sets it.
	Sources []string
}

// NamePoint returns err naming the input of the point it is about — an
// error with PointIndex and Reason methods, as queueing.PointError —
// ("sweep.csv:6: N=16, X=-1: concurrency must be …"); other errors come
// back as they are. The result wraps err.
func (p *Points) NamePoint(err error) error {
	var pe interface {
		error
		PointIndex() int
		Reason() string
	}
	if !errors.As(err, &pe) {
		return err
	}
	return &namedPointError{p.Source(pe.PointIndex()) + ": " + pe.Reason(), err}
}

// namedPointError is NamePoint's error: msg, wrapping err.
type namedPointError struct {
	msg string
	err error
}

func (e *namedPointError) Error() string { return e.msg }
func (e *namedPointError) Unwrap() error { return e.err }

// Source names point i (0-based) for errors: its Sources entry, or
// "point i+1" when it has none.
func (p *Points) Source(i int) string {
	if i >= 0 && i < len(p.Sources) && p.Sources[i] != "" {
		return p.Sources[i]
	}
	return fmt.Sprintf("point %d", i+1)
}

// SyntaxError is a malformed line of a points file that was skipped. Line
// and Column are 1-based; Column 0 means the whole line.
type SyntaxError struct {
	File   string
	Line   int
	Column int
	Msg    string
}

// Error writes "file:line:column: message" (no column when it is 0).
func (e *SyntaxError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Add appends the point (x, y). It returns an error, and adds nothing, when
// a unit differs from the units of the points already held (a size mixed
// with a duration, say).
func (p *Points) Add(x, y Quantity) error {
	if len(p.X) > 0 {
		if x.Unit != p.XUnit {
			return fmt.Errorf("x unit %s does not match the earlier points' %s", unitName(x.Unit), unitName(p.XUnit))
		}
		if y.Unit != p.YUnit {
			return fmt.Errorf("y unit %s does not match the earlier points' %s", unitName(y.Unit), unitName(p.YUnit))
		}
	} else {
		p.XUnit, p.YUnit = x.Unit, y.Unit
	}
	p.X = append(p.X, x.Value)
	p.Y = append(p.Y, y.Value)
	p.Sources = append(p.Sources, "")
	return nil
}

// AddFrom is Add, with source (a run's "--run X=FILE", say) recorded in
// Sources for the errors that name the point.
func (p *Points) AddFrom(x, y Quantity, source string) error {
	if err := p.Add(x, y); err != nil {
		return err
	}
	p.Sources[len(p.Sources)-1] = source
	return nil
}

// AddString parses and adds one "x=y" point, such as "100=36MB" or
// "250 = 382 MB" (see ParseQuantity for units).
func (p *Points) AddString(s string) error {
	xs, ys, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("point %q: want x=y, e.g. 100=36MB", s)
	}
	x, err := ParseQuantity(xs)
	if err != nil {
		return fmt.Errorf("point %q: x: %w", s, err)
	}
	y, err := ParseQuantity(ys)
	if err != nil {
		return fmt.Errorf("point %q: y: %w", s, err)
	}
	if err := p.Add(x, y); err != nil {
		return fmt.Errorf("point %q: %w", s, err)
	}
	p.Sources[len(p.Sources)-1] = "point " + s
	return nil
}

// ReadCSV adds the points of a CSV stream whose first two columns are x and
// y, with units as ParseQuantity accepts ("100,36MB"; quote a field with a
// comma or spaces). file names the stream in errors. Blank lines and lines
// starting with '#' are ignored; a first line whose fields are not numbers
// is a header and names the axes; further columns are ignored.
//
// A malformed line (one field, a bad number, a unit that disagrees with the
// earlier points) is recorded in Errors and skipped; only an I/O error stops
// the read and is returned, as does a stream longer than MaxPointsBytes (a
// *readcap.TooLargeError naming the cap and the file).
func (p *Points) ReadCSV(r io.Reader, file string) error {
	cr := csv.NewReader(readcap.NewReader(r, MaxPointsBytes, file, "a points file (CSV of x,y)"))
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	first := true
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			p.Errors = append(p.Errors, &SyntaxError{File: file, Line: pe.Line, Column: pe.Column, Msg: pe.Err.Error()})
			first = false
			continue
		}
		if tl := (*readcap.TooLargeError)(nil); errors.As(err, &tl) {
			return tl
		}
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		line, col0 := cr.FieldPos(0)
		isFirst := first
		first = false
		if len(rec) < 2 {
			p.Errors = append(p.Errors, &SyntaxError{File: file, Line: line, Msg: "want two fields, x and y"})
			continue
		}
		x, xerr := ParseQuantity(rec[0])
		y, yerr := ParseQuantity(rec[1])
		if isFirst && xerr != nil && yerr != nil {
			p.XName, p.YName = strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1])
			continue
		}
		if xerr != nil {
			p.Errors = append(p.Errors, &SyntaxError{File: file, Line: line, Column: col0, Msg: "x: " + xerr.Error()})
			continue
		}
		if yerr != nil {
			_, col := cr.FieldPos(1)
			p.Errors = append(p.Errors, &SyntaxError{File: file, Line: line, Column: col, Msg: "y: " + yerr.Error()})
			continue
		}
		if err := p.Add(x, y); err != nil {
			p.Errors = append(p.Errors, &SyntaxError{File: file, Line: line, Msg: err.Error()})
			continue
		}
		p.Sources[len(p.Sources)-1] = fmt.Sprintf("%s:%d", file, line)
	}
}

func unitName(u Unit) string {
	if u == Count {
		return "(a plain number)"
	}
	return string(u)
}
