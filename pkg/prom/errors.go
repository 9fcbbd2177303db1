package prom

import (
	"fmt"
	"strings"
)

// SyntaxError is a part of an input that could not be read: the file, the
// 1-based line and column (0 when unknown) and what was expected. Readers
// record it and go on with the next record where the format allows.
type SyntaxError struct {
	File   string
	Line   int
	Column int
	Msg    string
}

func (e *SyntaxError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// APIError is a Prometheus HTTP API response whose status was not
// "success". ErrorType, Message and Warnings are the server's words,
// verbatim.
type APIError struct {
	File      string
	Status    string
	ErrorType string
	Message   string
	Warnings  []string
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("%s: Prometheus API status %q", e.File, e.Status)
	if e.ErrorType != "" {
		s += " (" + e.ErrorType + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	for _, w := range e.Warnings {
		s += "; warning: " + w
	}
	return s
}

// lineCol converts a byte offset in buf to a 1-based line and column.
func lineCol(buf []byte, off int64) (line, col int) {
	if off > int64(len(buf)) {
		off = int64(len(buf))
	}
	if off < 0 {
		off = 0
	}
	line, col = 1, 1
	for _, c := range buf[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
