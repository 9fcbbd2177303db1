// Package sim is a discrete-event simulator of a k6 load test against a
// server whose capacity is known exactly. It exists to test ldanalyze's knee,
// ceiling and validity analyses on every load shape users run; it is test
// support, not public API.
//
// A run is a Config: a Server (a c-server FIFO queue with request classes,
// each a service-time distribution and overload behaviour), an optional
// WSServer (one global lock that writes every WebSocket player message), and
// k6-like Scenarios (constant-arrival-rate, ramping-arrival-rate,
// constant-vus, ramping-vus; several may overlap). Simulating it gives:
//
//   - a stream of k6 samples (Stream, an ingest.Reader), so tests need no
//     file I/O;
//   - k6 output files: WriteCSV (`k6 run --out csv`, any of the six
//     K6_CSV_TIME_FORMAT encodings, optionally a restricted --system-tags
//     header, optionally gzip) and WriteJSON (`--out json` lines);
//   - a Truth: the capacity C = c/E[S], the offered load at which the server
//     utilisation ρ reaches 1, whether the generator (maxVUs) or a rate
//     limiter bound first, per-scenario figures, the WebSocket message
//     capacity, and what the simulation measured (utilisation, Little's law
//     terms, per-second counts). Truth's doc comments define every figure.
//
// Time inside the simulator is int64 nanoseconds since the run's start;
// samples carry Config.Start plus that offset. Values follow k6's units:
// milliseconds for time trends (k6's metrics.D: ns / 1e6), bytes for
// data_sent/data_received, 1/0 for counters and rates.
//
// Everything is deterministic given Config.Seed (math/rand/v2 PCG): the same
// Config gives the same samples and the same bytes. The event loop is a
// binary heap of events; samples are produced in batches of one simulated
// second and never kept, so memory is bounded by what is in flight.
//
// See presets.go for the named runs the knee tests use, and the k6sim
// command for producing files by hand.
package sim
