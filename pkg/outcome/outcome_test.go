package outcome

import (
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

func tags(kv ...string) ingest.Tags {
	var keys, vals []string
	for i := 0; i < len(kv); i += 2 {
		keys = append(keys, kv[i])
		vals = append(vals, kv[i+1])
	}
	return ingest.NewTags(keys, vals, "", "")
}

// TestClassify is the outcome rule, case by case. The gRPC rows are those
// of ../shared/corpus/k6-v2/grpc_ramp.csv.gz (status = the gRPC code), the
// WebSocket rows those of ws_fanout.csv.gz (status 101).
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Protocol
		tags ingest.Tags
		want Outcome
	}{
		{"http expected true", HTTP, tags("status", "200", "expected_response", "true"), Success},
		{"http expected true wins over a 404 (a response callback)", HTTP, tags("status", "404", "expected_response", "true"), Success},
		{"http expected false 503", HTTP, tags("status", "503", "expected_response", "false"), Error},
		{"http expected false, status 0, timeout code", HTTP, tags("status", "0", "expected_response", "false", "error_code", "1050"), Timeout},
		{"http expected false, status 0, refused", HTTP, tags("status", "0", "expected_response", "false", "error_code", "1212"), Transport},
		{"http no expected_response: 302", HTTP, tags("status", "302"), Success},
		{"http no expected_response: 429", HTTP, tags("status", "429"), Error},
		{"http no expected_response: status 0", HTTP, tags("status", "0"), Transport},
		{"http no expected_response: garbage status", HTTP, tags("status", "abc"), Error},
		{"http restricted tags, error_code 1503", HTTP, tags("error_code", "1503"), Error},
		{"http restricted tags, error_code 1050", HTTP, tags("error_code", "1050"), Timeout},
		{"http restricted tags, nothing", HTTP, tags("name", "menu"), Unknown},
		{"http empty columns are absent tags", HTTP, tags("status", "", "expected_response", ""), Unknown},
		{"browser 200", Browser, tags("status", "200"), Success},
		{"grpc OK", GRPC, tags("status", "0"), Success},
		{"grpc NotFound", GRPC, tags("status", "5"), Error},
		{"grpc ResourceExhausted", GRPC, tags("status", "8"), Error},
		{"grpc DeadlineExceeded", GRPC, tags("status", "4"), Timeout},
		{"grpc no status, error", GRPC, tags("error", "connection refused"), Transport},
		{"grpc no status", GRPC, tags("name", "x"), Unknown},
		{"ws 101", WebSocket, tags("status", "101"), Success},
		{"ws 400", WebSocket, tags("status", "400"), Error},
		{"ws 0", WebSocket, tags("status", "0"), Transport},
		{"ws error, no status", WebSocket, tags("error", "dial: i/o timeout"), Transport},
		{"none", None, tags("status", "200"), Unknown},
	} {
		if got := Classify(c.p, &c.tags); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestProtocolOfMetric(t *testing.T) {
	for m, want := range map[string]Protocol{
		"http_reqs": HTTP, "http_req_duration": HTTP, "http_req_failed": HTTP, "grpc_req_duration": GRPC,
		"ws_connecting": WebSocket, "ws_sessions": WebSocket, "browser_web_vital_lcp": Browser,
		"iteration_duration": None, "fanout_ms": None, "http": None,
	} {
		if got := Of(m); got != want {
			t.Errorf("Of(%q) = %v, want %v", m, got, want)
		}
	}
	for _, p := range Protocols {
		if Stream(p.StreamMetric()) != p {
			t.Errorf("Stream(%q) != %v", p.StreamMetric(), p)
		}
		if Of(p.LatencyMetric()) != p {
			t.Errorf("Of(%q) != %v", p.LatencyMetric(), p)
		}
	}
}

func TestStatusName(t *testing.T) {
	for _, c := range []struct {
		p    Protocol
		s    string
		want string
	}{{GRPC, "0", "OK"}, {GRPC, "5", "NotFound"}, {GRPC, "8", "ResourceExhausted"}, {GRPC, "16", "Unauthenticated"}, {GRPC, "99", "99"},
		{HTTP, "503", "503"}, {HTTP, "0", "no response"}, {WebSocket, "", "no response"}} {
		if got := StatusName(c.p, c.s); got != c.want {
			t.Errorf("StatusName(%v, %q) = %q, want %q", c.p, c.s, got, c.want)
		}
	}
	if Overload(GRPC, "5") || !Overload(GRPC, "8") || Overload(HTTP, "404") || !Overload(HTTP, "503") {
		t.Error("Overload: NotFound and 404 are not overload, ResourceExhausted and 503 are")
	}
}
