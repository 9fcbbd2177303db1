// Package cost prices a load test's measured usage at AWS on-demand prices:
// USD per hour at peak, per month at a duty, what-if reductions and
// projection to a bigger load by growth exponents.
//
// # Prices
//
// The catalogue (DefaultCatalog) is embedded and dated (compiled
// 2026-11-30): per region, inter-AZ and internet-egress transfer (with
// monthly tiers), inter-region transfer, ALB and NLB hours and capacity
// units, NAT gateway hours and GB, Fargate vCPU and GB (x86, ARM), EC2
// on-demand Linux instances, and the global EKS cluster fee. Every price
// names its source and a Status (verified, secondary, inferred,
// unverified); a Report carries a warning for every unverified price it
// used. ReadOffer reads an AWS Price List bulk offer file, whose prices
// (Verified) override the catalogue with Catalog.Override.
//
// # Units
//
// Transfer is in GB of 10^9 bytes, as AWS bills it; memory in GiB (2^30
// bytes), as EC2 and Fargate size it (Fargate's "GB-hour" is per GiB
// configured). Rates given in Mbps convert with GBPerHourPerMbps (0.45),
// bytes per second with GBPerHourPerBytePerSecond. Prices are USD per the
// unit named beside them; costs are USD per hour unless named per month.
//
// # Usage file
//
//	region: us-west-2
//	items:
//	  - {name: snapshots to Redis, kind: transfer-cross-az, gb_per_hour: 144.5}
//	  - {name: sent to phones, kind: transfer-internet-out, mbps: 33.8}
//	  - {name: network load balancer, kind: nlb-lcu, nlcu: 18, hours: 1}
//	  - {name: compute, kind: compute, vcpu: 3.3, memory_gib: 5.7, method: fargate-ratio, instance: t3.xlarge}
//	  - {name: EKS, kind: fixed-hourly, price: eks.cluster_hour.standard_support}
//
// Each item has a name, a kind (Kinds) and the usage its kind needs (see
// Item and the Kind… constants); exponent sets its growth exponent for a
// Projection, or exponent_from names the JSON of `ldanalyze scale --fit`
// that holds it.
//
// # Usage from Prometheus exports
//
// Instead of a number an item may give series, one mapping or a list
// (compute takes vCPU and memory from two):
//
//	items:
//	  - name: snapshots to Redis
//	    kind: transfer-cross-az
//	    series: {file: snapshots.json, unit: bytes_per_second, match: {pod: "game-.*"}, agg: sum}
//
// file is an export prom.ReadFile reads (API JSON, Grafana CSV,
// VictoriaMetrics, text), relative to the usage file, or a `prom pull`
// directory with query naming one of its queries; unit (SeriesUnits) says
// which quantity the series fills and how it converts: bytes_per_second
// (× 3600/10^9), mbps (× 0.45), gb_per_hour, counter_bytes (rate taken) →
// GB per hour; cores, counter_cpu_seconds → vCPU; bytes (÷ 2^30), gib →
// memory GiB; nlcu, lcu. match maps labels to anchored RE2 patterns; agg
// (sum, avg, max; default sum) combines the matching series at each
// timestamp. Usage.ResolveSeries averages the result over a Window
// (ParseWindow, or the peak hold of a k6 run) and converts the mean once.
package cost
