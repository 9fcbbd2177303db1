package k6metric

import "testing"

func TestUnit(t *testing.T) {
	for _, c := range []struct {
		name     string
		contains Contains
		want     string
	}{
		{"http_req_duration", "", "ms"}, {"browser_web_vital_cls", "", ""}, {"browser_web_vital_lcp", "", "ms"},
		{"fanout_ms", "", "ms"}, {"payload_size", Data, "bytes"}, {"score", Default, ""}, {"data_received", "", "bytes"},
	} {
		if got := Unit(c.name, c.contains); got != c.want {
			t.Errorf("Unit(%q, %q) = %q, want %q", c.name, c.contains, got, c.want)
		}
	}
}

// TestWebVitals: Google's published boundaries (web.dev/articles/vitals):
// LCP 2.5 s / 4 s, INP 200 / 500 ms, CLS 0.1 / 0.25.
func TestWebVitals(t *testing.T) {
	for m, want := range map[string]WebVital{
		"browser_web_vital_lcp": {"LCP", 2500, 4000}, "browser_web_vital_inp": {"INP", 200, 500},
		"browser_web_vital_cls": {"CLS", 0.1, 0.25},
	} {
		if got, ok := WebVitalOf(m); !ok || got != want {
			t.Errorf("%s: %+v %v", m, got, ok)
		}
	}
	if _, ok := WebVitalOf("http_req_duration"); ok {
		t.Error("http_req_duration is no web vital")
	}
	if _, ok := WebVitalOf("browser_web_vital_xyz"); ok {
		t.Error("an unknown vital")
	}
}
