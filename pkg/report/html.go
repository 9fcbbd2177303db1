package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strings"
)

// WriteHTML writes the report as one self-contained HTML page: inline CSS,
// every plot inlined as SVG, no script and no reference to the network.
// Text is escaped by html/template, so a tag value holding markup renders
// as text.
func (r *Report) WriteHTML(w io.Writer) error {
	type plotView struct {
		Title, Alt string
		SVG        template.HTML
	}
	type sectionView struct {
		Section
		Inline []plotView
	}
	v := struct {
		*Report
		Views []sectionView
	}{Report: r}
	for _, s := range r.Sections {
		sv := sectionView{Section: s}
		for _, p := range s.Plots {
			svg, err := inlineSVG(p)
			if err != nil {
				return err
			}
			sv.Inline = append(sv.Inline, plotView{Title: p.Title, Alt: p.Alt, SVG: svg})
		}
		v.Views = append(v.Views, sv)
	}
	return pageTemplate.Execute(w, v)
}

var svgStart = regexp.MustCompile(`<svg[\s>]`)

// svgElements are the elements gonum/plot draws with; anything else in an
// inlined drawing is refused.
var svgElements = map[string]bool{"svg": true, "g": true, "path": true, "text": true, "tspan": true, "rect": true,
	"circle": true, "line": true, "polyline": true, "polygon": true, "defs": true, "style": true, "clipPath": true,
	"title": true, "desc": true}

// inlineSVG renders p as SVG without the XML prolog and doctype, ready to
// sit inside an HTML page. gonum/plot escapes the text it draws; the
// result is walked again so that no tag value can smuggle in a script, an
// event handler or a reference to another document.
func inlineSVG(p *Plot) (template.HTML, error) {
	var b bytes.Buffer
	if _, err := p.SVG().WriteTo(&b); err != nil {
		return "", err
	}
	s := b.String()
	loc := svgStart.FindStringIndex(s)
	if loc == nil {
		return "", fmt.Errorf("report: plot %q: no <svg> element in the drawing", p.Name)
	}
	s = s[loc[0]:]
	if err := checkSVG(s); err != nil {
		return "", fmt.Errorf("report: plot %q: refusing to inline the SVG: %w", p.Name, err)
	}
	// The page scales the drawing to its column (its viewBox keeps the
	// proportions).
	s = strings.Replace(s, "<svg", `<svg role="img" class="plot"`, 1)
	return template.HTML(s), nil // escaped by gonum/plot, checked by checkSVG
}

// checkSVG walks an SVG document and returns an error at the first element
// outside svgElements, event-handler attribute, href or src attribute, or
// url() that leaves the document.
func checkSVG(s string) error {
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !svgElements[t.Name.Local] {
				return fmt.Errorf("element <%s>", t.Name.Local)
			}
			for _, a := range t.Attr {
				n := strings.ToLower(a.Name.Local)
				if strings.HasPrefix(n, "on") || n == "href" || n == "src" {
					return fmt.Errorf("attribute %s", a.Name.Local)
				}
				if v := strings.ToLower(a.Value); strings.Contains(v, "url(") && !strings.Contains(v, "url(#") {
					return fmt.Errorf("attribute %s=%q", a.Name.Local, a.Value)
				}
			}
		case xml.ProcInst, xml.Directive:
			return fmt.Errorf("markup %T inside the drawing", t)
		}
	}
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font:15px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#1f2328;max-width:70rem;margin:2rem auto;padding:0 1rem}
h1{font-size:1.6rem;border-bottom:1px solid #d0d7de;padding-bottom:.3rem}
h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem}
.verdict{background:#f6f8fa;border-left:4px solid #0969da;padding:.6rem 1rem}
.verdict p{margin:.2rem 0}
.warning{color:#9a6700}
table{border-collapse:collapse;margin:1rem 0;font-size:13px;display:block;overflow-x:auto}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:right;white-space:nowrap}
th{background:#f6f8fa}
td:first-child,th:first-child{text-align:left}
td.wrap{white-space:normal;text-align:left;min-width:20rem}
figure{margin:1rem 0}
figcaption{font-size:13px;color:#59636e}
svg.plot{max-width:100%;height:auto;display:block}
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{if .Verdict}}<div class="verdict">{{range .Verdict}}<p>{{.}}</p>{{end}}</div>{{end}}
{{range .Warnings}}<p class="warning"><strong>Warning:</strong> {{.}}</p>
{{end}}
{{- range .Views}}
<section>
<h2>{{.Title}}</h2>
{{range .Text}}<p>{{.}}</p>
{{end}}
{{- with .Table}}
<table>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr>{{range .}}<td{{if gt (len .) 40}} class="wrap"{{end}}>{{.}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
{{- end}}
{{range .Inline}}<figure>
{{.SVG}}
<figcaption>{{.Alt}}</figcaption>
</figure>
{{end}}
{{- range .Notes}}<p>{{.}}</p>
{{end}}
</section>
{{- end}}
</body>
</html>
`))
