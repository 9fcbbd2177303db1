#!/usr/bin/env python3
"""Writes the knee --prom fixtures (query_range JSON + manifest.json) for the
k6 run testdata/k6/breakpoint.csv.gz (2026-11-30T02:07:09Z–02:09:19Z).
Points every 5 s from 02:07:00 to 02:09:30; values are set by hand below.
Run from this directory: python3 gen_fixtures.py"""
import json, os, calendar, time

T0 = calendar.timegm((2026, 11, 30, 2, 7, 0))
T1 = calendar.timegm((2026, 11, 30, 2, 9, 30))
TS = list(range(T0, T1 + 1, 5))
def hms(h, m, s): return calendar.timegm((2026, 11, 30, h, m, s))

def ramp(t, lo, hi, t_full):
    """lo at the start, rising linearly to hi at t_full, then hi."""
    if t >= t_full: return hi
    return lo + (hi - lo) * (t - T0) / (t_full - T0)

def fmt(v):
    return repr(float(v)) if v != int(v) else str(int(v))

def write(dirname, url, queries):
    os.makedirs(dirname, exist_ok=True)
    entries = []
    for name, role, unit, expr, series in queries:
        result, points = [], 0
        for labels, f in series:
            vals = [[t, fmt(f(t))] for t in TS]
            points += len(vals)
            result.append({"metric": labels, "values": vals})
        doc = {"status": "success", "data": {"resultType": "matrix", "result": result}}
        with open(os.path.join(dirname, name + ".json"), "w") as fh:
            json.dump(doc, fh, indent=1)
            fh.write("\n")
        entries.append({"name": name, "expr": expr, "role": role, "unit": unit,
                        "file": name + ".json", "series": len(series), "points": points})
    man = {"version": 1, "url": url, "start": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(T0)),
           "end": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(T1)), "step_s": 5, "rate_window": "30s",
           "queries": entries}
    with open(os.path.join(dirname, "manifest.json"), "w") as fh:
        json.dump(man, fh, indent=1)
        fh.write("\n")

CPU = 'sum by (namespace, pod) (rate(container_cpu_usage_seconds_total{container!="", container!="POD"}[30s]))'
LIM = 'sum by (namespace, pod) (kube_pod_container_resource_limits{resource="cpu"})'
RST = 'sum by (namespace, pod, container) (kube_pod_container_status_restarts_total)'
OOM = 'sum by (namespace, pod, container) (kube_pod_container_status_last_terminated_reason{reason="OOMKilled"})'
NODE = '1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle"}[30s]))'
THR = ('sum by (namespace, pod, container) (rate(container_cpu_cfs_throttled_periods_total{container!=""}[30s])) / '
       'sum by (namespace, pod, container) (rate(container_cpu_cfs_periods_total{container!=""}[30s]))')

# Case 1: two game pods behind an ingress whose hash key was empty: game-0
# does all the work (2.37 cores from 02:08:20), game-1 idles at 0.03 cores.
# Limits 4 cores each, so nothing is saturated. game-1 restarts (OOMKilled)
# between 02:08:40 and 02:08:45, inside the hold that starts 02:08:40.
g0 = {"namespace": "arena", "pod": "game-0"}
g1 = {"namespace": "arena", "pod": "game-1"}
write("two_pods", "http://prometheus.example:9090", [
    ("pod_cpu_cores", "pod_cpu_cores", "cores", CPU, [
        (g0, lambda t: round(ramp(t, 0.5, 2.37, hms(2, 8, 20)), 4)),
        (g1, lambda t: 0.03)]),
    ("pod_cpu_limit_cores", "pod_cpu_limit_cores", "cores", LIM, [(g0, lambda t: 4), (g1, lambda t: 4)]),
    ("restarts", "restarts", "count", RST, [
        (dict(g0, container="game"), lambda t: 0),
        (dict(g1, container="game"), lambda t: 1 if t >= hms(2, 8, 45) else 0)]),
    ("oom_killed", "oom_killed", "count", OOM, [
        (dict(g1, container="game"), lambda t: 1 if t >= hms(2, 8, 45) else 0)]),
])

# Case 2: the database VM (node_exporter on db-1) at 95 % CPU at the
# ceiling (0.95 from 02:08:20 to 02:09:00, 0.97 after); the two api pods
# share the work evenly at 1.1 of 2 cores (55 %), the k8s node at 40 %.
a1 = {"namespace": "shop", "pod": "api-7d9f8c6b5-x2kq9"}
a2 = {"namespace": "shop", "pod": "api-7d9f8c6b5-m4pz7"}
def db(t):
    if t >= hms(2, 9, 0): return 0.97
    return round(ramp(t, 0.30, 0.95, hms(2, 8, 20)), 4)
write("database_95", "http://prometheus.example:9090", [
    ("pod_cpu_cores", "pod_cpu_cores", "cores", CPU, [
        (a1, lambda t: round(ramp(t, 0.3, 1.1, hms(2, 8, 20)), 4)),
        (a2, lambda t: round(ramp(t, 0.3, 1.1, hms(2, 8, 20)), 4))]),
    ("pod_cpu_limit_cores", "pod_cpu_limit_cores", "cores", LIM, [(a1, lambda t: 2), (a2, lambda t: 2)]),
    ("cpu_throttle_ratio", "cpu_throttle_ratio", "ratio", THR, [
        (dict(a1, container="api"), lambda t: 0.01), (dict(a2, container="api"), lambda t: 0.01)]),
    ("node_cpu_ratio", "node_cpu_ratio", "ratio", NODE, [
        ({"instance": "db-1:9100"}, db),
        ({"instance": "node-a:9100"}, lambda t: 0.40)]),
    ("restarts", "restarts", "count", RST, [
        (dict(a1, container="api"), lambda t: 2), (dict(a2, container="api"), lambda t: 0)]),
])
