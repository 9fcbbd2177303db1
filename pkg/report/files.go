package report

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/ldanalyze/ldanalyze/internal/outfile"
)

// WriteFiles writes the report as outputs of outs (each replaces its
// target only when the set is committed): when md is not "", the markdown
// to md with every plot next to it as PNG and SVG (md's name without its
// extension, a dash and the plot's name: report-load.png), linked
// relatively; when html is not "", the self-contained HTML page. Draw the
// plots first (DrawPlots) to have their warnings. Errors name the file.
func (r *Report) WriteFiles(outs *outfile.Set, md, html string, opt outfile.Options) error {
	if md != "" {
		dir := filepath.Dir(md)
		mopt := MarkdownOptions{ImagePrefix: strings.TrimSuffix(filepath.Base(md), filepath.Ext(md)) + "-"}
		for _, p := range r.Plots() {
			for _, f := range []struct {
				ext string
				src io.WriterTo
			}{{"png", p.PNG()}, {"svg", p.SVG()}} {
				if err := outs.WriteFile(filepath.Join(dir, p.File(mopt.ImagePrefix, f.ext)), opt, func(w io.Writer) error { _, err := f.src.WriteTo(w); return err }); err != nil {
					return err
				}
			}
		}
		if err := outs.WriteFile(md, opt, func(w io.Writer) error { return r.WriteMarkdown(w, mopt) }); err != nil {
			return err
		}
	}
	if html != "" {
		return outs.WriteFile(html, opt, r.WriteHTML)
	}
	return nil
}
