#!/usr/bin/env python3
"""Writes run.csv.gz: a synthetic k6 CSV output (19-column header, k6 v2
default system tags) of an open-model run with three holds, 60 s at
5 it/s, 60 s at 10 it/s and 364 s at 15 it/s, from 2026-11-30T03:00:00Z;
the usage series (gen_prom.py) cover the worked example's peak,
03:02:03Z to 03:08:03Z; knee finds the 15 it/s hold at 03:02:01Z to
03:08:03Z. Every iteration is one GET /menu,
200, 20 ms + a deterministic wobble. Run from this directory."""
import calendar, gzip

T0 = calendar.timegm((2026, 11, 30, 3, 0, 0))
HOLDS = [(60, 5), (60, 10), (364, 15)]
HEAD = "metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata"
TAGS = ",,,,true,,GET,menu,HTTP/1.1,peak,,200,,,http://127.0.0.1/menu,,"

rows = [HEAD]
t = T0
for secs, rate in HOLDS:
    for s in range(secs):
        rows.append(f"vus,{t},{rate},,,,,,,,,peak,,,,,,,")
        for i in range(rate):
            dur = 20 + (i * 7 + s) % 5
            rows.append(f"http_reqs,{t},1.000000{TAGS}")
            rows.append(f"http_req_duration,{t},{dur:.6f}{TAGS}")
            rows.append(f"iterations,{t},1.000000,,,,,,,,,peak,,,,,,,")
        t += 1
with gzip.GzipFile("run.csv.gz", "wb", mtime=0) as fh:
    fh.write(("\n".join(rows) + "\n").encode())
