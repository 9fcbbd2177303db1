package sim

import "time"

// Second is what happened in one simulated second [i s, i+1 s) of the run,
// counted by the simulator (not from the samples).
type Second struct {
	// Offered is the iterations the executors wanted to start: started plus
	// dropped.
	Offered int
	// Started is the iterations started; Dropped those dropped for want of
	// a VU (dropped_iterations).
	Started, Dropped int
	// Arrived is the requests that reached the server.
	Arrived int
	// OK is the successful responses clients received (HTTP 2xx/3xx, gRPC
	// 0); Errors the other answers clients received (timeouts included);
	// TimedOut the client timeouts among them.
	OK, Errors, TimedOut int
	// Served is the requests whose service ended (wasted work on requests
	// whose client timed out or was interrupted included).
	Served int
	// BusyServers is the mean number of busy server slots in the second;
	// InSystem the mean number of requests at the server (waiting or in
	// service).
	BusyServers, InSystem float64
	// WSWritten is the player messages the WebSocket lock wrote;
	// WSLockBusy the fraction of the second it was held.
	WSWritten  int
	WSLockBusy float64
}

// Measured is what the simulation measured over the whole run.
type Measured struct {
	// Duration is the run's length: from t = 0 until the last scenario
	// finished (its last iteration ended or was interrupted).
	Duration time.Duration
	// Iterations completed, Dropped and Interrupted (cut by a graceful stop
	// or ramp-down).
	Iterations, Dropped, Interrupted int64
	// Requests is the requests that reached the server; OK, Errors and
	// TimedOut are the answers clients got (as in Second).
	Requests, OK, Errors, TimedOut int64
	// Served is the requests whose service ended; Wasted those among them
	// whose client no longer waited.
	Served, Wasted int64
	// BusyServerSeconds is ∫ busy slots dt (s).
	BusyServerSeconds float64
	// Utilisation is BusyServerSeconds / (servers × Duration), in [0, 1].
	Utilisation float64
	// MeanInSystem is L, the time-average number of requests at the server
	// over [0, Duration].
	MeanInSystem float64
	// ArrivalRatePerS is λ, Requests / Duration (req/s).
	ArrivalRatePerS float64
	// MeanSojournMS is W, the mean time a request spent at the server
	// (arrival until served or rejected; 0 for fast answers), over the
	// requests that left by the end (ms). Little's law: L = λ·W.
	MeanSojournMS float64
	// MeanWaitMS is the mean queue wait of served requests (ms);
	// MeanServiceMS their mean service time (ms).
	MeanWaitMS, MeanServiceMS float64
	// VUsMax is the last vus_max: the VUs initialised by the end.
	VUsMax int
	// FirstDropAt is the time of the first dropped iteration, -1 if none.
	FirstDropAt time.Duration
	// WSWritten, WSDelivered and WSLost count player messages: written by
	// the lock, received by an open player, written after the player's
	// class closed. WSLockUtilisation is the lock's busy fraction over
	// Duration.
	WSWritten, WSDelivered, WSLost int64
	WSLockUtilisation              float64
	// Seconds is the run second by second.
	Seconds []Second
}

// measure accumulates Measured while the run goes.
type measure struct {
	m       Measured
	last    int64 // ns: integrals are up to date until here
	busy    int   // busy slots now
	insys   int   // requests at the server now
	lock    int   // 1 while the WS lock is held
	busyNS  float64
	insysNS float64
	lockNS  float64

	sojournNS, sojournN float64
	waitNS, serviceNS   float64
	firstDrop           int64
}

func newMeasure() *measure { return &measure{firstDrop: -1} }

// sec returns the bucket of simulated time t (ns).
func (m *measure) sec(t int64) *Second {
	i := int(t / 1e9)
	for len(m.m.Seconds) <= i {
		m.m.Seconds = append(m.m.Seconds, Second{})
	}
	return &m.m.Seconds[i]
}

// advance integrates the current levels up to now.
func (m *measure) advance(now int64) {
	if now <= m.last {
		return
	}
	if m.busy != 0 || m.insys != 0 || m.lock != 0 {
		for t := m.last; t < now; {
			end := min(now, (t/1e9+1)*1e9)
			dt := float64(end - t)
			s := m.sec(t)
			s.BusyServers += float64(m.busy) * dt / 1e9
			s.InSystem += float64(m.insys) * dt / 1e9
			s.WSLockBusy += float64(m.lock) * dt / 1e9
			t = end
		}
		dt := float64(now - m.last)
		m.busyNS += float64(m.busy) * dt
		m.insysNS += float64(m.insys) * dt
		m.lockNS += float64(m.lock) * dt
	}
	m.last = now
}

// finish computes the run-wide figures at the run's end.
func (m *measure) finish(end int64, servers int) Measured {
	m.advance(end)
	out := m.m
	out.Duration = time.Duration(end)
	out.BusyServerSeconds = m.busyNS / 1e9
	if end > 0 {
		if servers > 0 {
			out.Utilisation = m.busyNS / (float64(servers) * float64(end))
		}
		out.MeanInSystem = m.insysNS / float64(end)
		out.ArrivalRatePerS = float64(out.Requests) / (float64(end) / 1e9)
		out.WSLockUtilisation = m.lockNS / float64(end)
	}
	if m.sojournN > 0 {
		out.MeanSojournMS = m.sojournNS / m.sojournN / 1e6
	}
	if out.Served > 0 {
		out.MeanWaitMS = m.waitNS / float64(out.Served) / 1e6
		out.MeanServiceMS = m.serviceNS / float64(out.Served) / 1e6
	}
	out.FirstDropAt = time.Duration(m.firstDrop)
	if n := int(end/1e9) + 1; len(out.Seconds) > n {
		out.Seconds = out.Seconds[:n]
	}
	return out
}
