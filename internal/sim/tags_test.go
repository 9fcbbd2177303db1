package sim

import (
	"strings"
	"testing"
)

func TestRequestTagsPerOutcome(t *testing.T) {
	// The tag columns of a request, per outcome, as k6 writes them
	// (shared/research/k6-formats.md §4: error_code = 1000 + status for
	// HTTP ≥ 400, 1050 and status 0 with no proto for a timeout; gRPC: the
	// status is the code, the name the method path).
	e, err := newEngine(OpenRamp30s(), true)
	if err != nil {
		t.Fatal(err)
	}
	sc := e.scens[0]
	search := e.byName["search"]
	for out, want := range map[uint8]string{
		outOK:      ",,,,true,,GET,search,HTTP/1.1,open_ramp,,200,,,search,,",
		outMaxWait: ",,,1429,false,,GET,search,HTTP/1.1,open_ramp,,429,,,search,,",
		outShed:    ",,,1503,false,,GET,search,HTTP/1.1,open_ramp,,503,,,search,,",
		outFail:    ",,,1500,false,,GET,search,HTTP/1.1,open_ramp,,500,,,search,,",
		outLimited: ",,,1429,false,,GET,search,HTTP/1.1,open_ramp,,429,,,search,,",
		outTimeout: ",,request timeout,1050,false,,GET,search,,open_ramp,,0,,,search,,",
	} {
		if got := string(sc.requestTags(e, search, out).csv[0]); got != want {
			t.Errorf("outcome %d:\n%s\nwant\n%s", out, got, want)
		}
	}
	g, err := newEngine(GRPCRamp(), true)
	if err != nil {
		t.Fatal(err)
	}
	for out, want := range map[uint8]string{
		outOK:      ",,,,,,Check,/grpc.health.v1.Health/Check,,grpc_ramp,grpc.health.v1.Health,0,,,127.0.0.1:18081/grpc.health.v1.Health/Check,call=ok,",
		outMaxWait: ",,,,,,Check,/grpc.health.v1.Health/Check,,grpc_ramp,grpc.health.v1.Health,8,,,127.0.0.1:18081/grpc.health.v1.Health/Check,call=ok,",
		outTimeout: ",,,,,,Check,/grpc.health.v1.Health/Check,,grpc_ramp,grpc.health.v1.Health,4,,,127.0.0.1:18081/grpc.health.v1.Health/Check,call=ok,",
	} {
		if got := string(g.scens[0].requestTags(g, 0, out).csv[0]); got != want {
			t.Errorf("gRPC outcome %d:\n%s\nwant\n%s", out, got, want)
		}
	}
	want := `{"call":"ok","group":"","method":"Check","name":"/grpc.health.v1.Health/Check","scenario":"grpc_ramp","service":"grpc.health.v1.Health","status":"0","url":"127.0.0.1:18081/grpc.health.v1.Health/Check"}`
	if got := string(g.scens[0].requestTags(g, 0, outOK).json); got != want {
		t.Errorf("gRPC JSON tags\n%s\nwant\n%s", got, want)
	}
}

func TestUserTags(t *testing.T) {
	// Run tags land in extra_tags in a varying pair order (k6 writes Go map
	// order); a user tag named like a column fills the column; one named
	// like a disabled system tag is left out of the CSV but kept in JSON;
	// a value with a comma is quoted.
	cols := newColumns(DefaultSystemTags)
	ts := cols.newTagSet([]kv{{"scenario", "s"}, {"status", "200"}},
		map[string]string{"testid": "t1", "flow": "a,b"}, map[string]string{"status": "418", "vu": "7"})
	got := map[string]bool{}
	for _, c := range ts.csv {
		got[string(c)] = true
	}
	for _, w := range []string{
		`,,,,,,,,,s,,418,,,,"flow=a,b&testid=t1",`, // 8 empty columns before scenario
		`,,,,,,,,,s,,418,,,,"testid=t1&flow=a,b",`,
	} {
		if !got[w] {
			t.Errorf("no CSV encoding %s among %v", w, got)
		}
	}
	if want := `{"flow":"a,b","scenario":"s","status":"418","testid":"t1","vu":"7"}`; string(ts.json) != want {
		t.Errorf("JSON tags %s, want %s", ts.json, want)
	}
	if ts.extraStr != "flow=a,b&testid=t1" {
		t.Errorf("extra = %q", ts.extraStr)
	}
}

func TestCheckTagsQuoted(t *testing.T) {
	c := OpenRamp30s()
	c.Server.Classes[0].Check = "menu, fast"
	e, err := newEngine(c, true)
	if err != nil {
		t.Fatal(err)
	}
	got := string(e.scens[0].checkTags(e, 0).csv[0])
	if !strings.HasPrefix(got, `,"menu, fast",`) {
		t.Errorf("check tags %s: the name is not quoted", got)
	}
}
