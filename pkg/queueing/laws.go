package queueing

// Utilisation returns U = X·S, the busy fraction (0–1 per server; above 1
// means more than one server's worth) of a resource that completes
// throughput X per second at service time (demand) S seconds per request
// (utilisation law, LZGS ch. 3). Both must be finite and ≥ 0.
func Utilisation(throughputPerSecond, serviceSeconds float64) (utilisation float64, err error) {
	if err := nonNegative("throughput", throughputPerSecond); err != nil {
		return 0, err
	}
	if err := nonNegative("service time", serviceSeconds); err != nil {
		return 0, err
	}
	return throughputPerSecond * serviceSeconds, nil
}

// ServiceTime returns S = U/X in seconds, the service demand per request
// implied by a measured utilisation (0–1 ratio, e.g. CPU busy fraction
// summed over the servers it covers) at throughput X per second (the
// utilisation law solved for S, LZGS ch. 3). X must be > 0, U ≥ 0.
func ServiceTime(utilisation, throughputPerSecond float64) (serviceSeconds float64, err error) {
	if err := nonNegative("utilisation", utilisation); err != nil {
		return 0, err
	}
	if err := positive("throughput", throughputPerSecond); err != nil {
		return 0, err
	}
	return utilisation / throughputPerSecond, nil
}

// InteractiveResponseTime returns R = N/X − Z in seconds for a closed test
// of N users (VUs) completing X requests per second with think time Z
// seconds between requests (interactive response-time law, LZGS ch. 3).
// N and X must be > 0, Z ≥ 0. A negative R means the inputs disagree (the
// measured X is higher than N users could produce with that think time)
// and is returned as an error.
func InteractiveResponseTime(users, throughputPerSecond, thinkSeconds float64) (responseSeconds float64, err error) {
	if err := positive("users", users); err != nil {
		return 0, err
	}
	if err := positive("throughput", throughputPerSecond); err != nil {
		return 0, err
	}
	if err := nonNegative("think time", thinkSeconds); err != nil {
		return 0, err
	}
	r := users/throughputPerSecond - thinkSeconds
	if r < 0 {
		return 0, errorf("N/X − Z = %g s < 0: %g users cannot complete %g/s with %g s think time", r, users, throughputPerSecond, thinkSeconds)
	}
	return r, nil
}

// SaturationUsers returns N* = (D + Z)/D_max, the number of users of a
// closed test beyond which the bottleneck saturates and throughput can no
// longer grow (asymptotic bounds, LZGS ch. 5): D is the total service demand
// of one request in seconds summed over all resources, Z the think time in
// seconds and D_max the largest single demand in seconds. The throughput
// bound is X ≤ min(N/(D+Z), 1/D_max). D and D_max must be > 0 with
// D_max ≤ D, Z ≥ 0.
func SaturationUsers(demandSeconds, thinkSeconds, maxDemandSeconds float64) (users float64, err error) {
	if err := positive("total demand", demandSeconds); err != nil {
		return 0, err
	}
	if err := nonNegative("think time", thinkSeconds); err != nil {
		return 0, err
	}
	if err := positive("largest demand", maxDemandSeconds); err != nil {
		return 0, err
	}
	if maxDemandSeconds > demandSeconds {
		return 0, errorf("largest demand %g s exceeds the total demand %g s", maxDemandSeconds, demandSeconds)
	}
	return (demandSeconds + thinkSeconds) / maxDemandSeconds, nil
}
