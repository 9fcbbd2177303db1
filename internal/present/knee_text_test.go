package present

import (
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
)

// TestKneeTextEscapesTagBytes: a check message quoting a tag value with
// invalid UTF-8 and an ANSI escape (a name tag "se\xffar\x1b[31mch")
// reaches the terminal escaped, as the tables' cells are
// (render.Printable), and markdown keeps the bytes.
func TestKneeTextEscapesTagBytes(t *testing.T) {
	rep := &KneeDoc{Result: &knee.Result{Levels: "none"}, Checks: []checks.Check{{ID: checks.IDErrors, Status: checks.Warn, Message: "5 × 503 on se\xffar\x1b[31mch"}}}
	var tb, md strings.Builder
	if err := KneeText(&tb, render.Table, rep, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := KneeText(&md, render.Markdown, rep, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if want := `5 × 503 on se\xffar\x1b[31mch`; !strings.Contains(tb.String(), want) || strings.Contains(tb.String(), "\xff") {
		t.Errorf("terminal text:\n%s\nwant %s and no raw bytes", tb.String(), want)
	}
	if !strings.Contains(md.String(), "se\xffar\x1b[31mch") {
		t.Errorf("markdown %q: want the bytes kept", md.String())
	}
}
