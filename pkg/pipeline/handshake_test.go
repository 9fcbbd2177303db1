package pipeline_test

import (
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
)

// handshakeWarning is the run's handshake-only warning, "" without one.
func handshakeWarning(t *testing.T, path string, opt pipeline.Options) string {
	t.Helper()
	an, err := pipeline.Run([]string{path}, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range an.Knee.Warnings {
		if w.Code == knee.WarnHandshakeOnly {
			return w.Message
		}
	}
	return ""
}

// The WebSocket fan-out run (testdata/k6-v2/README.md: 1,806 sessions,
// the messages timed by the custom Trend fanout_ms, 15,243 samples, and
// counted by questions_received) analysed on its default ws_connecting
// says the handshake is all it times and names fanout_ms first; asked for
// a metric, or on an HTTP run, it says nothing.
func TestHandshakeOnlyWarning(t *testing.T) {
	const ws = "../../testdata/k6-v2/ws_fanout.csv.gz"
	m := handshakeWarning(t, ws, pipeline.Options{})
	for _, want := range []string{"ws_connecting times only the WebSocket handshake", "(1806 samples)", "fanout_ms (15243 samples), questions_received (15243 samples)", "--metric fanout_ms"} {
		if !strings.Contains(m, want) {
			t.Errorf("warning %q lacks %q", m, want)
		}
	}
	for _, tc := range []struct {
		path   string
		metric string
	}{{ws, "fanout_ms"}, {ws, "ws_connecting"}, {"../../testdata/k6/breakpoint.csv.gz", ""}} {
		if m := handshakeWarning(t, tc.path, pipeline.Options{Metric: tc.metric}); m != "" {
			t.Errorf("%s --metric %q: warning %q, want none", tc.path, tc.metric, m)
		}
	}
}
