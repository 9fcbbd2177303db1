// Package timeline is the one accumulator of a load-test run: every
// command that reads a run (knee, check, report, compare, ledger, queue,
// scale, cost) reads it through a Timeline, so they count the same
// requests the same way.
//
// An Accumulator takes the run's samples (ingest.Sample, from any reader),
// on as many goroutines as the reader feeds (Fork one per goroutine, Merge
// them back), and Close turns it into a read-only Timeline:
//
//   - the span and resolution of the data, and its spans separated by gaps
//     of MaxGapS seconds without any sample;
//   - per second (Second): the request stream of the run's protocol by
//     outcome (package outcome decides success, error, transport error,
//     timeout), failures by status, iterations, dropped iterations, the
//     vus and vus_max gauges summed over the instances of a distributed
//     run, bytes sent and received;
//   - per second, sealed in sketch.Series: the latency of the successful
//     samples of the analysed Trend and the iteration durations, and per
//     request name a log histogram of successful latencies (Hist);
//   - over the whole run (Totals): the Trend's samples (all, successful,
//     failed, rate limited), statuses, k6 error codes, failures by status
//     and request name, k6 checks by name, the metrics seen, the run's
//     cardinality, the scenarios, per input file the span of its samples;
//   - per second, the values of the thresholds it was given
//     (ThresholdValue), re-evaluated per load level by the checks.
//
// Memory grows with the run's duration in seconds and with the distinct
// statuses, names and checks (each capped), not with its rows: records are
// kept in dense 64-second blocks shared by every goroutine
// (internal/secstore), sketches sealed a few seconds behind each reader.
// Close decodes every second's counts once into a columnar table (each
// column in the narrowest integer type that holds it, ~15–30 bytes a
// second) that Range, Each and Second read, and that MainColumns lends
// to the knee without a copy: the many walks of the analyses cost no
// decoding.
//
// The analysed Trend (Options.Metric) may be left empty: the Accumulator
// then keeps the latency of every protocol's request Trend
// (http_req_duration, grpc_req_duration, ws_connecting,
// browser_http_req_duration) and Close picks the run's own: the first of
// them, in that order, with samples.
package timeline
