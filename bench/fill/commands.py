"""Running the benchmark's commands from its Python scripts: the output of a command that must succeed,
the same under the shared CPU lock that every timed run takes, and one timed run of bench/fill."""
import pathlib
import re
import subprocess
import sys


def run(cmd):
    """The command's stdout; exits naming the calling script, the command and its stderr if it fails."""
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if done.returncode != 0:
        who = pathlib.Path(sys.argv[0]).name
        sys.exit(f"{who}: {' '.join(map(str, cmd))} failed:\n{done.stderr}")
    return done.stdout


def locked(cmd):
    """run(cmd) under `flock /tmp/nodegen-cpu.lock`, so timed runs never overlap."""
    return run(["flock", "/tmp/nodegen-cpu.lock", *cmd])


def fill(build, args):
    """One bench/fill run under the lock (`args`: what to fill and how): its figures, such as seconds
    (float) and nodes (int), from the key=value fields of its line."""
    line = locked([pathlib.Path(build) / "bench/fill", *args])
    fields = dict(re.findall(r"(\w+)=(\S+)", line))
    return {"seconds": float(fields["seconds"]), "nodes": int(float(fields["nodes"]))}
