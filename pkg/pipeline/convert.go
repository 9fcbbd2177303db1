package pipeline

import (
	"fmt"
	"io"

	"github.com/ldanalyze/ldanalyze/internal/outfile"
	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

// Convert writes the samples of the inputs (several are one run; "-" is
// stdin) as a Parquet or Arrow file (ingest.WriteColumnar with opt) to f,
// an output of the command, and reads the written file back to count its
// rows: a count other than the rows read is an error. On any error f is
// abandoned; otherwise it is closed, for its set to put in place. The
// result's Stats say what was read and skipped, also on an error.
func Convert(inputs []string, stdin io.Reader, f *outfile.File, opt ingest.ColumnarOptions) (res ingest.ColumnarResult, written int64, err error) {
	r, err := ingest.OpenAll(inputs, stdin)
	if err != nil {
		f.Abort()
		return res, 0, err
	}
	defer r.Close()
	res, err = ingest.WriteColumnar(f, r, opt)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing %s: %w", f.Name(), cerr)
	}
	if err == nil {
		written, err = ingest.CountColumnarRows(f.TempName())
	}
	if err == nil && written != res.RowsIn {
		err = fmt.Errorf("convert: read %d rows but %s holds %d", res.RowsIn, f.Name(), written)
	}
	if err != nil {
		f.Abort()
	}
	return res, written, err
}
