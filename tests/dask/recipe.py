"""Crash logs bucketed on a Dask cluster through `symscope symbolicate --format jsonl`.

    python recipe.py SYMSCOPE SCHEDULER|local OUT.json SYMBOLS_DIR LOG_LIST

The symbol files are read once on the client and broadcast to every worker, which writes them
to a folder of its own the first time a task needs them. The log paths (one a line in
LOG_LIST, on storage the workers share) are split into partitions; each partition is one
`symscope symbolicate --format jsonl -s SYMBOLS -` process fed its paths on standard input,
so that the symbol files are loaded once per partition, not per log. Each line's signed
stack (the crashed one, else the first) gives its `fingerprint`; the logs are grouped by it
and written as `{"buckets": [{"fingerprint", "count", "members"}], "unreadable": [...]}`,
largest bucket first. `local` starts a LocalCluster of two single-threaded workers.

On Spark the same lines come from `RDD.pipe`: the symbol files shipped once with
`SparkContext.addFile` (read on each executor through `SparkFiles.get`), the log paths an RDD
of strings split into partitions, and each partition piped through the same command,
`rdd.pipe(["symscope", "symbolicate", "--format", "jsonl", "-s", symbols_dir, "-"])`, which
reads the partition's paths on standard input and yields one JSON line per log in their order;
`map(json.loads)`, the signed stack's `fingerprint` as the key, then `groupByKey` give the
buckets. Nothing else changes: symscope neither knows nor cares which engine feeds it.
"""

import json
import os
import subprocess
import sys
import tempfile

import dask.bag as db
from dask.distributed import Client, LocalCluster, get_worker

PARTITION = 500


def symbol_files(root):
    """Every file under `root`: its path relative to `root`, and its bytes."""
    files = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, root)] = f.read()
    return files


def local_symbols(files):
    """The broadcast symbol files written once on this worker; their folder."""
    worker = get_worker()
    folder = getattr(worker, "symscope_symbols", None)
    if folder is None:
        folder = tempfile.mkdtemp(prefix="symscope-symbols-")
        for rel, data in files.items():
            path = os.path.join(folder, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
        worker.symscope_symbols = folder
    return folder


def symbolicate(paths, symscope, files):
    """One partition of log paths through one symscope process: (path, fingerprint|None, error)."""
    folder = local_symbols(files)
    run = subprocess.run(
        [symscope, "symbolicate", "--format", "jsonl", "-s", folder, "-"],
        input="\n".join(paths) + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    out = []
    for line in run.stdout.splitlines():
        doc = json.loads(line)
        if "error" in doc:
            out.append((doc["path"], None, doc["error"]))
            continue
        stacks = doc["stacks"]
        signed = next((s for s in stacks if s["crashed"]), stacks[0] if stacks else None)
        out.append((doc["path"], signed and signed["fingerprint"], None))
    return out


def main():
    symscope, scheduler, out_path, symbols_dir, log_list = sys.argv[1:6]
    with open(log_list) as f:
        paths = [line.strip() for line in f if line.strip()]
    if scheduler == "local":
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True)
        client = Client(cluster)
    else:
        cluster, client = None, Client(scheduler)
    try:
        files = client.scatter(symbol_files(symbols_dir), broadcast=True)
        results = (
            db.from_sequence(paths, partition_size=PARTITION)
            .map_partitions(symbolicate, symscope, files)
            .compute()
        )
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    buckets, unreadable = {}, []
    for path, fingerprint, error in results:
        if fingerprint is None:
            unreadable.append({"path": path, "reason": error or "no stack"})
        else:
            buckets.setdefault(fingerprint, []).append(path)
    rows = [
        {"fingerprint": fp, "count": len(members), "members": sorted(members)}
        for fp, members in buckets.items()
    ]
    rows.sort(key=lambda r: (-r["count"], r["members"][0]))
    with open(out_path, "w") as f:
        json.dump({"buckets": rows, "unreadable": unreadable}, f, indent=1)


if __name__ == "__main__":
    main()
