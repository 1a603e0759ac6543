"""One comparison run: `nodegen run` with a backend variant, then `nodegen stats` on its output.

Used by bench/end-to-end/compare. A run is a failure (never silently a row of zeros) when the program exits non-zero or
times out, when its --report JSON or the stats JSON lacks a field listed in docs/output-format.md,
when the report does not echo the backend, flags and threads asked for, or when report and stats disagree
on the node counts.
"""
import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass

# Backend variants of the matrix: name -> `nodegen run` flags.
VARIANTS = {
    "vm": ["--backend", "vm"],
    "vm-prefault": ["--backend", "vm", "--prefault"],
    "vm-hugepages": ["--backend", "vm", "--huge-pages"],
    "vector": ["--backend", "vector"],
    "suballoc": ["--backend", "suballoc"],
}

REPORT_FIELDS = ("domain", "dim", "nodes", "boundary_nodes", "interior_nodes", "seconds", "fill_seconds",
                 "nodes_per_second", "peak_rss_bytes", "minor_faults", "backend", "prefault", "huge_pages",
                 "threads", "seed", "output")
STATS_FIELDS = ("nodes", "boundary_nodes", "interior_nodes", "nn_over_h", "packing_density", "holes")

# CSV columns, in order. Quality columns come from `nodegen stats`; child_* from wait4() on the process,
# an independent check of the report's own getrusage() figures; load_1min (the machine's load average when
# the run started) tells how much other work competed with it.
COLUMNS = ("domain", "dim", "variant", "backend", "prefault", "huge_pages", "threads", "rep", "sequence",
           "load_1min", "status", "error", "nodes", "boundary_nodes", "interior_nodes", "seconds", "fill_seconds",
           "nodes_per_second", "wall_seconds", "peak_rss_bytes", "bytes_per_node", "minor_faults",
           "faults_per_node", "child_maxrss_bytes", "child_minor_faults", "nn_over_h_min", "nn_over_h_mean",
           "nn_over_h_max", "packing_density", "holes_mean", "holes_p999", "holes_max")


@dataclass
class RunSpec:
    domain: str          # path of the domain JSON
    variant: str         # key of VARIANTS
    threads: int
    rep: int
    sequence: int        # position in the whole schedule (the order runs really happened in)
    seed: int


class RunFailed(Exception):
    pass


def run_with_rusage(command, timeout, log_path):
    """Runs command, stdout+stderr to log_path; returns (exit status, wall seconds, rusage of the child)."""
    with open(log_path, "w") as log:
        start = time.monotonic()
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid != 0:
                break
            if time.monotonic() - start > timeout:
                os.killpg(process.pid, signal.SIGKILL)
                os.wait4(process.pid, 0)
                raise RunFailed("timed out after %.0f s" % timeout)
            time.sleep(0.01)
        wall = time.monotonic() - start
        process.returncode = os.waitstatus_to_exitcode(status)  # stops Popen from reaping it again
    return process.returncode, wall, usage


def log_tail(log_path, lines=5):
    try:
        with open(log_path) as log:
            return " | ".join(line.strip() for line in log.read().splitlines()[-lines:])
    except OSError:
        return ""


def load_json(path, fields, what):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise RunFailed("%s unreadable: %s" % (what, e))
    missing = [k for k in fields if k not in data]
    if missing:
        raise RunFailed("%s lacks %s" % (what, ", ".join(missing)))
    return data


def check_report_echoes_request(report, spec):
    flags = VARIANTS[spec.variant]
    wanted = {"backend": flags[1], "prefault": "--prefault" in flags, "huge_pages": "--huge-pages" in flags,
              "threads": spec.threads}
    for key, value in wanted.items():
        if report[key] != value:
            raise RunFailed("report says %s=%r, asked for %r" % (key, report[key], value))
    if report["nodes"] <= 0 or report["nodes"] != report["boundary_nodes"] + report["interior_nodes"]:
        raise RunFailed("report node counts inconsistent: %d != %d + %d"
                        % (report["nodes"], report["boundary_nodes"], report["interior_nodes"]))


def run_stats(nodegen, h5_path, timeout, samples, log_path):
    command = [nodegen, "stats", h5_path, "--json", "--samples", str(samples)]
    out_path = log_path + ".stats.json"
    with open(out_path, "w") as out, open(log_path, "a") as log:
        try:
            result = subprocess.run(command, stdout=out, stderr=log, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RunFailed("nodegen stats timed out after %.0f s" % timeout)
    if result.returncode != 0:
        raise RunFailed("nodegen stats exited %d: %s" % (result.returncode, log_tail(log_path)))
    return load_json(out_path, STATS_FIELDS, "stats JSON")


def remove_outputs(h5_path):
    stem = os.path.splitext(h5_path)[0]
    for path in (h5_path, stem + ".xdmf"):
        if os.path.exists(path):
            os.remove(path)


def execute(nodegen, spec, run_dir, timeout, stats_samples, keep_outputs=False):
    """Runs one spec; returns a CSV row (dict over COLUMNS) with status "ok" or "failed" and the reason."""
    stem = os.path.splitext(os.path.basename(spec.domain))[0]
    name = "%s_%s_t%d_r%d" % (stem, spec.variant, spec.threads, spec.rep)
    h5_path = os.path.join(run_dir, name + ".h5")
    report_path = os.path.join(run_dir, name + ".report.json")
    log_path = os.path.join(run_dir, name + ".log")
    for stale in (report_path, log_path + ".stats.json"):
        if os.path.exists(stale):
            os.remove(stale)
    flags = VARIANTS[spec.variant]
    row = dict.fromkeys(COLUMNS, "")
    row.update(domain=stem, variant=spec.variant, backend=flags[1], prefault=int("--prefault" in flags),
               huge_pages=int("--huge-pages" in flags), threads=spec.threads, rep=spec.rep,
               sequence=spec.sequence, load_1min=round(os.getloadavg()[0], 2), status="failed")
    command = [nodegen, "run", spec.domain, "-o", h5_path, *flags, "--threads", str(spec.threads),
               "--seed", str(spec.seed), "--quiet", "--report", report_path]
    try:
        status, wall, usage = run_with_rusage(command, timeout, log_path)
        if status != 0:
            raise RunFailed("nodegen run exited %d: %s" % (status, log_tail(log_path)))
        report = load_json(report_path, REPORT_FIELDS, "report JSON")
        check_report_echoes_request(report, spec)
        if not os.path.exists(h5_path):
            raise RunFailed("no output file %s" % h5_path)
        stats = run_stats(nodegen, h5_path, timeout, stats_samples, log_path)
        for key in ("nodes", "boundary_nodes", "interior_nodes"):
            if stats[key] != report[key]:
                raise RunFailed("stats %s=%d but report %s=%d" % (key, stats[key], key, report[key]))
        nodes = report["nodes"]
        row.update(dim=report["dim"], nodes=nodes, boundary_nodes=report["boundary_nodes"],
                   interior_nodes=report["interior_nodes"], seconds=report["seconds"],
                   fill_seconds=report["fill_seconds"], nodes_per_second=report["nodes_per_second"],
                   wall_seconds=round(wall, 4), peak_rss_bytes=report["peak_rss_bytes"],
                   bytes_per_node=round(report["peak_rss_bytes"] / nodes, 2),
                   minor_faults=report["minor_faults"],
                   faults_per_node=round(report["minor_faults"] / nodes, 5),
                   child_maxrss_bytes=usage.ru_maxrss * 1024, child_minor_faults=usage.ru_minflt,
                   nn_over_h_min=stats["nn_over_h"]["min"], nn_over_h_mean=stats["nn_over_h"]["mean"],
                   nn_over_h_max=stats["nn_over_h"]["max"], packing_density=stats["packing_density"],
                   holes_mean=stats["holes"]["mean"], holes_p999=stats["holes"]["p999"],
                   holes_max=stats["holes"]["max"], status="ok")
    except RunFailed as e:
        row["error"] = str(e)
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:   # a field of the wrong shape or type
        row["error"] = "malformed report or stats JSON: %s: %s" % (type(e).__name__, e)
    finally:
        if not keep_outputs:
            remove_outputs(h5_path)
    return row
