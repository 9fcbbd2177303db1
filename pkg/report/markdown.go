package report

import (
	"io"
	"net/url"
	"strings"

	"github.com/ldanalyze/ldanalyze/internal/render"
)

// MarkdownOptions configure WriteMarkdown.
type MarkdownOptions struct {
	// ImagePrefix is prepended to each plot's file name in the image
	// links, relative to the markdown file: "report-" links
	// report-latency.png and report-latency.svg.
	ImagePrefix string
	// NoImages writes each plot as its description instead of its image
	// (when the plots are not written: the report on stdout).
	NoImages bool
}

// WriteMarkdown writes the report as GitHub-flavoured markdown: the verdict
// paragraph, the warnings, then each section with its table and plots.
// Each plot is its PNG image, linked to its SVG. Text from the input (tag
// values, file names) is escaped so it renders as text and cannot break a
// table.
func (r *Report) WriteMarkdown(w io.Writer, opt MarkdownOptions) error {
	var b strings.Builder
	b.WriteString("# " + escapeMarkdown(r.Title) + "\n\n")
	if len(r.Verdict) > 0 {
		b.WriteString("**Verdict.** ")
		for i, v := range r.Verdict {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(render.MarkdownProse(v))
		}
		b.WriteString("\n\n")
	}
	for _, wn := range r.Warnings {
		b.WriteString("- **Warning:** " + render.MarkdownProse(wn) + "\n")
	}
	if len(r.Warnings) > 0 {
		b.WriteString("\n")
	}
	for _, s := range r.Sections {
		b.WriteString("## " + escapeMarkdown(s.Title) + "\n\n")
		for _, t := range s.Text {
			b.WriteString(render.MarkdownProse(t) + "\n\n")
		}
		if s.Table != nil {
			if _, err := io.WriteString(w, b.String()); err != nil {
				return err
			}
			b.Reset()
			if err := s.Table.Write(w, render.Markdown); err != nil {
				return err
			}
			b.WriteString("\n")
		}
		for _, p := range s.Plots {
			if opt.NoImages {
				// Without images (report to stdout) a plot is its
				// description, so that a section of plots is not empty.
				b.WriteString("_Plot, written with -o FILE: " + escapeMarkdown(p.Alt) + "._\n\n")
				continue
			}
			png := url.PathEscape(p.File(opt.ImagePrefix, "png"))
			svg := url.PathEscape(p.File(opt.ImagePrefix, "svg"))
			b.WriteString("[![" + escapeAlt(p.Alt) + "](" + png + ")](" + svg + ")\n\n")
		}
		for _, t := range s.Notes {
			b.WriteString(render.MarkdownProse(t) + "\n\n")
		}
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// escapeMarkdown makes s render as the same text in a markdown paragraph:
// HTML is entity-escaped, and the characters that start emphasis, code,
// links or tables are backslash-escaped. An underscore inside a word
// (http_req_duration) is left alone: GitHub does not read it as emphasis.
func escapeMarkdown(s string) string { return render.MarkdownEscape(s) }

// escapeAlt makes s safe as an image's alt text.
func escapeAlt(s string) string {
	return escapeMarkdown(strings.NewReplacer("[", "(", "]", ")").Replace(s))
}
