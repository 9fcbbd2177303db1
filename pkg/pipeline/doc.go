// Package pipeline is ldanalyze's one pipeline: sources → timeline →
// analyses. Every command that reads a run (knee, check, report, compare,
// ledger add, queue --run, scale --run, cost --run) calls Run, so every
// one of them reads the files the same way (one pass, on every core),
// counts the same requests as successes (package outcome) and offers the
// same --metric, --window, --percentiles, --slo, --threshold, --summary
// and --prom.
//
//	files ─ ingest.ReadAll (every core) ─┬─ timeline.Accumulator ─ Close ─ timeline.Timeline
//	                                     └─ window.Aggregator (--by, endpoints)         │
//	   ┌────────────────────────────────────────────────────────────────────────────────┘
//	   ├─ knee.Analyze (levels, knee, ceiling, SLO) ─┬─ checks.Evaluate (+ GeneratorFromExport)
//	   │                                             ├─ saturation.Attribute (+ the --prom export)
//	   │                                             └─ CompareSummary (+ the --summary file)
//	   └─ the per-scenario knee analyses
//
// The result, an Analysis, is what the renderers (internal/present,
// pkg/report) and the many-run analyses (compare, ledger) read.
//
// The package also holds the adapters between the Analysis and the
// analyses that take plain data, so that those depend on no format: the
// load generator's series for the checks (GeneratorFromExport), a run's
// levels and spans for package queueing (LittleSpans, LoadLevels,
// CheckLittle, EstimateMMc, Queues) and for package scale (RunLevels,
// SteadyThroughput, SelectorValue, QueryStats), the usage windows for
// package cost (PeakWindow, Cost) and the ledger's file (ReadLedger).
package pipeline
