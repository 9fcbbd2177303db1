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
//
// # What is k6's and what is approximate
//
// Taken from k6's source: the arrival-rate start times (cal's closed form,
// evenly spaced in area; constant-arrival-rate at i·P from 0), ramping-vus's
// raw steps, the CSV header and row encoding (%f values, encoding/csv
// quoting, empty = absent), the JSON envelope and key order, the tag
// rules (error_code 1000+status, 1050 with status 0 and no proto for a
// timeout, url = name, gRPC status codes), which samples a request, an
// iteration, a drop and a tick emit, and in what order.
//
// Approximate or left out:
//   - no network: http_req_duration = http_req_waiting = the server's time
//     (blocked, connecting, tls_handshaking, sending, receiving are 0);
//     a refusal or a load-independent failure takes at least 0.1 ms;
//   - the corpus server's sleep overshoot (0.5–2.5 ms) is not modelled:
//     CorpusServer is the nominal 200 req/s;
//   - timestamps are UTC (k6 writes the local zone); extra_tags pairs come
//     in one of up to 4 rotations of the sorted pairs (k6: Go map order);
//     the metadata column is empty (vu and iter are not supported); group
//     is always the root "" and group_duration is not emitted;
//   - row order: each event's samples reach the buffer after an
//     exponential delay (Output.PushJitter), a VU's own samples staying in
//     order; samples at one instant come in scheduling order (a vus tick
//     at the instant a VU starts may come before it, a race in k6);
//   - an arrival-rate VU beyond preAllocatedVUs is ready at once (older
//     k6 releases did this) unless Scenario.VUInitTime is set (current k6: the
//     iteration is dropped while one VU initialises);
//   - vus_max starts at the most VUs the scenarios plan at once over each
//     one's [startTime, end + gracefulStop) (k6 computes it from its
//     execution requirements, with graceful ramp-down reservations); a
//     ramped-down VU is hard-stopped GracefulRampDown after its step;
//   - an interrupted iteration emits data_sent and data_received but
//     nothing for its request in flight;
//   - JSON Metric lines carry no thresholds (the simulator has none);
//   - WebSocket: every connection of a class dials at once, a close frame
//     counts as a message sent, messages to a closed class still take the
//     lock and are lost, there is no ws_ping;
//   - rates may be fractional per TimeUnit (k6 takes whole numbers).
package sim
