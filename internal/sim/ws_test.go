package sim

import (
	"slices"
	"testing"
)

func TestWSLadder(t *testing.T) {
	// ws-ladder's lock utilisation is classes × 17.38 msgs/s × 4.5 ms
	// (WSTruth) on the holds below the knee (± 6 % over 20 s: the class
	// cycles of 11.5 s make it lumpy) and saturated at 16 classes;
	// fanout_ms is flat at 2 classes and blows up at 16; messages queued
	// for a closed class are lost (the corpus's 17,140 expected vs 15,243
	// received).
	c := WSLadder()
	n := map[string]int{}
	var fan2, fan16 []float64
	s, err := NewStream(c)
	if err != nil {
		t.Fatal(err)
	}
	start := DefaultStart.UnixNano()
	for s.Next() {
		sm := s.Sample()
		n[sm.Metric]++
		if sm.Metric == "fanout_ms" {
			switch at := (sm.TimeNS - start) / 1e9; {
			case at >= 5 && at < 31:
				fan2 = append(fan2, sm.Value)
			case at >= 105 && at < 124:
				fan16 = append(fan16, sm.Value)
			}
		}
	}
	tr := s.Truth()
	m := tr.Measured
	per := tr.WS.MsgsPerSPerClass * tr.WS.PerMessageMS / 1000
	lock := func(from, to int) float64 {
		sum := 0.0
		for _, x := range m.Seconds[from:to] {
			sum += x.WSLockBusy
		}
		return sum / float64(to-from)
	}
	within(t, "lock utilisation at 4 classes", lock(40, 60), 4*per, 0.06)
	within(t, "lock utilisation at 8 classes", lock(70, 90), 8*per, 0.06)
	if u := lock(100, 124); u < 0.97 {
		t.Errorf("lock utilisation at 16 classes %.3f, want ≥ 0.97", u)
	}
	slices.Sort(fan2)
	slices.Sort(fan16)
	if med := fan2[len(fan2)/2]; med > 60 {
		t.Errorf("fanout median at 2 classes %v ms, want under 60 (20 players × 4.5 ms in turn)", med)
	}
	if med := fan16[len(fan16)/2]; med < 500 {
		t.Errorf("fanout median at 16 classes %v ms, want over 500", med)
	}
	if m.WSLost == 0 || m.WSDelivered != int64(n["fanout_ms"]) || n["ws_msgs_received"] != n["fanout_ms"] || n["questions_received"] != n["fanout_ms"] {
		t.Errorf("lost %d, delivered %d, fanout %d, received %d, questions_received %d",
			m.WSLost, m.WSDelivered, n["fanout_ms"], n["ws_msgs_received"], n["questions_received"])
	}
	classes := n["iterations"] + int(m.Interrupted)
	if n["ws_sessions"] != 21*classes || n["ws_connecting"] != 21*classes {
		t.Errorf("ws_sessions %d, ws_connecting %d; want 21 × %d classes", n["ws_sessions"], n["ws_connecting"], classes)
	}
	// k6/websockets counts a close frame as a message sent.
	if want := n["questions_asked"] + 21*n["iterations"]; n["ws_msgs_sent"] != want {
		t.Errorf("ws_msgs_sent %d, want asks %d + 21 × %d closed classes", n["ws_msgs_sent"], n["questions_asked"], n["iterations"])
	}
}
