#!/usr/bin/env python3
"""Writes the Prometheus query_range JSON fixtures of `ldanalyze cost` whose
means over the window 2026-11-30T03:02:03Z/03:08:03Z (six minutes; the peak
hold of run.csv.gz) give the usages of issue 8's worked example:

  snapshots.json  bytes/s per pod, game-0..2 sum to 144.5e9/3600 B/s = 144.5 GB/h
                  (redis-0 is there too and must not match pod=~"game-.*")
  phones.json     Mbps per service, ws-gateway averages 15.2/0.45 = 33.78 Mbps
                  = 15.2 GB/h (admin must not match)
  lb_bytes.json   a raw byte counter (counter_bytes): 920,000,000 bytes in the
                  24 intervals of the window = 9.2 GB/h, with a counter reset
                  inside the window
  nlb.json        NLCU, 16..20 around 18
  cpu.json        cores per pod, game-0..2 sum to 3.3 (redis-0 must not match)
  memory.json     working-set bytes per pod, game-0..2 sum to 5.7 GiB

Points every 15 s from 02:58:03 to 03:12:03. Inside the window (25 points,
both ends included) a gauge is mean + (-2, -1, 0, 1, 2)·d repeating, so its
mean is exact; outside it the values are ×0.5 before and ×2 after, so a
wrong window gives a wrong price. Run from this directory."""
import calendar, json

def at(h, m, s): return calendar.timegm((2026, 11, 30, h, m, s))
W0, W1 = at(3, 2, 3), at(3, 8, 3)
TS = list(range(at(2, 58, 3), at(3, 12, 3) + 1, 15))
WOBBLE = [-2, -1, 0, 1, 2]

def gauge(mean, d):
    out, k = [], 0
    for t in TS:
        if t < W0:
            v = 0.5 * mean
        elif t > W1:
            v = 2 * mean
        else:
            v = mean + WOBBLE[k % 5] * d
            k += 1
        out.append((t, v))
    return out

def write(name, series):
    result = [{"metric": labels, "values": [[t, repr(float(v))] for t, v in pts]} for labels, pts in series]
    lines = [" " + json.dumps(r, separators=(",", ":")) for r in result]
    with open(name, "w") as fh:
        fh.write('{"status":"success","data":{"resultType":"matrix","result":[\n')
        fh.write(",\n".join(lines))
        fh.write("\n]}}\n")

GIB = 2 ** 30
snap = 144.5e9 / 3600  # bytes/s, sum of the game pods
write("snapshots.json", [
    ({"namespace": "game", "pod": "game-0"}, gauge(13_000_000, 250_000)),
    ({"namespace": "game", "pod": "game-1"}, gauge(14_000_000, 300_000)),
    ({"namespace": "game", "pod": "game-2"}, gauge(snap - 27_000_000, 200_000)),
    ({"namespace": "game", "pod": "redis-0"}, gauge(90_000_000, 1_000_000)),
])
write("phones.json", [
    ({"service": "ws-gateway"}, gauge(15.2 / 0.45, 1.5)),
    ({"service": "admin"}, gauge(400, 10)),
])
# Counter: increments per 15 s interval. Inside the window (24 intervals
# ending at 03:02:18 .. 03:08:03) 38333333, 38333333, 38333334 repeating,
# 920,000,000 bytes in all; before it 10,000,000, after it 90,000,000 per
# interval. At 03:05:03 the process restarts: the counter reads only that
# interval's increment (a reset, which prom.Rate takes as the increase).
lb, v, k = [], 5_000_000_000, 0
for i, t in enumerate(TS):
    if i > 0:
        if W0 < t <= W1:
            inc = [38_333_333, 38_333_333, 38_333_334][k % 3]
            k += 1
        elif t <= W0:
            inc = 10_000_000
        else:
            inc = 90_000_000
        v = inc if t == at(3, 5, 3) else v + inc
    lb.append((t, v))
write("lb_bytes.json", [({"__name__": "nlb_cross_az_bytes_total", "load_balancer": "net/game-nlb"}, lb)])
write("nlb.json", [({"load_balancer": "net/game-nlb"}, gauge(18, 1))])
write("cpu.json", [
    ({"namespace": "game", "pod": "game-0"}, gauge(1.0, 0.1)),
    ({"namespace": "game", "pod": "game-1"}, gauge(1.2, 0.05)),
    ({"namespace": "game", "pod": "game-2"}, gauge(1.1, 0.02)),
    ({"namespace": "game", "pod": "redis-0"}, gauge(0.7, 0.1)),
])
write("memory.json", [
    ({"namespace": "game", "pod": "game-0"}, gauge(1.9 * GIB, 50_000_000)),
    ({"namespace": "game", "pod": "game-1"}, gauge(2.0 * GIB, 40_000_000)),
    ({"namespace": "game", "pod": "game-2"}, gauge(1.8 * GIB, 30_000_000)),
    ({"namespace": "game", "pod": "redis-0"}, gauge(3 * GIB, 10_000_000)),
])
