package knee_test

import (
	"math"
	"testing"

	"github.com/ldanalyze/ldanalyze/internal/sim"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
)

// TestLevelBytes checks the network figures of each level against the
// simulator's truth: every response of CorpusServer brings 210 bytes
// (ResponseBytes) and every request sends 80 bytes, 146 for order
// (RequestBytes), so a level without errors has bytes_per_request 210 and
// bytes_sent_per_request 80 + 0.15·66 = 89.9 for the 50/30/15/5 % mix
// (within 2 %: a level's mix is a sample of it), and its rates are those
// per request times requests per second.
func TestLevelBytes(t *testing.T) {
	r, _ := simulate(t, sim.Staircase(), knee.Options{})
	if len(r.Holds) < 5 {
		t.Fatalf("%d holds, want the staircase's 8", len(r.Holds))
	}
	checked := 0
	for _, l := range append(r.Holds, r.Windows...) {
		if l.ErrorRate != 0 || !(l.RequestsRPS > 20) {
			continue
		}
		checked++
		if got := float64(l.BytesPerRequest); math.Abs(got-210) > 1e-9 {
			t.Errorf("%s: bytes_per_request %v, want 210", l.Start.Format("15:04:05"), got)
		}
		if got := float64(l.BytesSentPerRequest); math.Abs(got-89.9) > 0.02*89.9 {
			t.Errorf("%s: bytes_sent_per_request %v, want 89.9 ± 2 %%", l.Start.Format("15:04:05"), got)
		}
		for _, c := range []struct {
			name      string
			rate, per knee.F
		}{{"received", l.BytesReceivedPerS, l.BytesPerRequest}, {"sent", l.BytesSentPerS, l.BytesSentPerRequest}} {
			if want := float64(c.per) * float64(l.RequestsRPS); math.Abs(float64(c.rate)-want) > 1e-6*want {
				t.Errorf("%s: bytes %s per s %v, want per request × requests/s = %v", l.Start.Format("15:04:05"), c.name, float64(c.rate), want)
			}
		}
	}
	if checked < 3 {
		t.Fatalf("only %d levels without errors", checked)
	}
}
