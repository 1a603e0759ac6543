#!/usr/bin/python3
# Where in a `nodegen run` the peak RSS is reached, and what it is made of.
#
#   bench/end-to-end/rss_phases.py [--smaps] -- NODEGEN run DOMAIN.json -o OUT.h5 --threads T --quiet
#
# Runs the command and samples /proc/PID/status every ~0.3 ms. Prints the highest RSS (anonymous and
# file-backed parts) seen in each phase: "before" the fill (start-up, domain loading, boundary
# placement), "fill" (VmSize >= 1 GiB: the VM store and the k-d tree's arenas are reserved, so this
# also covers the output copy done before they are released) and "after" (the HDF5 and XDMF write).
# With --smaps, also the resident KiB per mapping at the overall peak (read from /proc/PID/smaps each
# time the RSS rises by 256 KiB; file mappings by path and permissions, anonymous ones by address).
# Sampling misses peaks shorter than a sample; GNU time's %M (bench/end-to-end/cli_peak_memory.sh) is the figure
# of record. Wrap it in the CPU lock: flock /tmp/nodegen-cpu.lock bench/end-to-end/rss_phases.py -- ...
import collections, re, subprocess, sys, time

args = sys.argv[1:]
want_smaps = "--smaps" in args
cmd = args[args.index("--") + 1:] if "--" in args else [a for a in args if a != "--smaps"]

def status(pid):
    d = {}
    for line in open(f"/proc/{pid}/status"):
        k, _, v = line.partition(":")
        if k in ("VmRSS", "RssAnon", "RssFile", "VmSize"):
            d[k] = int(v.split()[0])
    return d

def smaps(pid):
    per = collections.Counter()
    name = None
    for line in open(f"/proc/{pid}/smaps"):
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            f = line.split()
            name = f"{f[5]} {f[1]}" if len(f) > 5 else f"[anon {f[0].split('-')[0]}] {f[1]}"
        elif line.startswith("Rss:"):
            per[name] += int(line.split()[1])
    return per

p = subprocess.Popen(cmd)
phase, best, peak, peak_smaps = "before", {}, 0, None
while p.poll() is None:
    try:
        d = status(p.pid)
        if "VmRSS" not in d:
            break
        if d["VmSize"] >= 1 << 20:
            phase = "fill"
        elif phase == "fill":
            phase = "after"
        if d["VmRSS"] > best.get(phase, {}).get("VmRSS", 0):
            best[phase] = d
        if want_smaps and d["VmRSS"] > peak + 256:
            peak, peak_smaps = d["VmRSS"], smaps(p.pid)
    except (FileNotFoundError, ProcessLookupError):
        break
    time.sleep(0.0003)
p.wait()
for ph in ("before", "fill", "after"):
    if ph in best:
        d = best[ph]
        print(f"{ph:6s} max rss {d['VmRSS']:7d} KiB (anon {d['RssAnon']:7d}, file {d['RssFile']:6d})")
if peak_smaps:
    print(f"mappings at {peak} KiB:")
    for name, kib in peak_smaps.most_common():
        if kib >= 64:
            print(f"  {kib:7d} KiB  {name}")
sys.exit(p.returncode)
