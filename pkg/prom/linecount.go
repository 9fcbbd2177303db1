package prom

import (
	"bytes"
	"io"
	"sort"
)

// lineCounter passes reads through and remembers where the newlines were,
// so that a byte offset reported by a streaming decoder becomes a line and
// a column without holding the input. Offsets before the decoder's
// position are forgotten by forget (only their count is kept), so memory
// is bounded by the newlines of the value being decoded.
type lineCounter struct {
	r       io.Reader
	read    int64   // bytes passed through
	nl      []int64 // offsets of remembered newlines, ascending
	dropped int     // newlines forgotten
	lastNL  int64   // offset of the last forgotten newline, −1 if none
}

func newLineCounter(r io.Reader) *lineCounter { return &lineCounter{r: r, lastNL: -1} }

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			break
		}
		c.nl = append(c.nl, c.read+int64(i+j))
		i += j + 1
	}
	c.read += int64(n)
	return n, err
}

// forget drops the newlines before off.
func (c *lineCounter) forget(off int64) {
	k := sort.Search(len(c.nl), func(i int) bool { return c.nl[i] >= off })
	if k == 0 {
		return
	}
	c.lastNL = c.nl[k-1]
	c.dropped += k
	c.nl = append(c.nl[:0], c.nl[k:]...)
}

// pos is the 1-based line and column of byte offset off.
func (c *lineCounter) pos(off int64) (line, col int) {
	k := sort.Search(len(c.nl), func(i int) bool { return c.nl[i] >= off })
	last := c.lastNL
	if k > 0 {
		last = c.nl[k-1]
	}
	return c.dropped + k + 1, int(off - last)
}
