"""Memory of a file body sent by ``pigeon run``: is it flat at any size (DESIGN §11)?

A collection in a temporary folder holds two requests: ``tiny`` (a GET of a few bytes) and
``upload`` (a POST whose body is a 1 GB file, made sparse there: no disk used). A loopback
server takes each upload and discards it, counting its bytes. Each round runs ``pigeon run``
on each request in its own process (``tests/measured.py``: the child's peak resident set
size) and prints both; the upload must come within 20 MB of the idle run's peak, measured in
the same run (medians of interleaved rounds). Everything is deleted afterwards.

    python benchmarks/bench_file_body.py [--size-mb 1024] [--rounds 3] [--bound-mb 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

TINY = 'name = "Tiny"\nurl = "{url}/tiny"\n'
UPLOAD = """\
name = "Upload"
method = "POST"
url = "{url}/upload"

[body]
type = "file"
path = "fixtures/big.bin"
"""


def main() -> int:
    from measured import pigeon
    from upload_server import upload_server

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024, help="the file's size (MiB)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bound-mb", type=float, default=20.0, help="allowed above idle")
    args = parser.parse_args()
    size = args.size_mb * 1024 * 1024

    with tempfile.TemporaryDirectory() as tmp, upload_server(keep=False) as server:
        root = Path(tmp) / "col"
        (root / "fixtures").mkdir(parents=True)
        (root / "collection.toml").write_text('name = "bench"\n')
        (root / "tiny.toml").write_text(TINY.format(url=server.url))
        (root / "upload.toml").write_text(UPLOAD.format(url=server.url))
        with (root / "fixtures" / "big.bin").open("wb") as fh:
            fh.truncate(size)  # a hole: read as zeros, no disk used
        idle: list[float] = []
        upload: list[float] = []
        seconds: list[float] = []
        for n in range(1, args.rounds + 1):
            quiet = pigeon("run", str(root), "tiny", "--no-color", cwd=Path(tmp))
            busy = pigeon("run", str(root), "upload", "--no-color", cwd=Path(tmp))
            for run in (quiet, busy):
                if run.code != 0:
                    print(run.out, run.err, file=sys.stderr)
                    return 1
            got = [u.size for u in server.seen if u.path == "/upload"]
            if got[-1] != size:
                print(f"the server got {got[-1]} bytes, not {size}", file=sys.stderr)
                return 1
            idle.append(quiet.mb)
            upload.append(busy.mb)
            seconds.append(busy.seconds)
            print(
                f"round {n}: idle {quiet.mb:6.1f} MB   upload of {args.size_mb} MiB "
                f"{busy.mb:6.1f} MB (+{busy.mb - quiet.mb:.1f})   {busy.seconds:5.1f} s"
            )
    above = statistics.median(u - i for u, i in zip(upload, idle, strict=True))
    print(
        f"median: idle {statistics.median(idle):.1f} MB, upload {statistics.median(upload):.1f}"
        f" MB, +{above:.1f} MB above idle (bound {args.bound_mb:g}), "
        f"{statistics.median(seconds):.1f} s"
    )
    ok = above <= args.bound_mb
    print("within bound" if ok else "OVER BOUND")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
