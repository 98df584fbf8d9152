#!/usr/bin/env python3
"""Each side's wall time as the mean and as the median of its calls, for the
rows whose wall ratio misses the bar while their GPU ratio does not.

    python3 median_vs_mean.py BIN_DIR [REPS]

mlx_lite: Google Benchmark's real time (the mean iteration) beside
eval_loop's wall_median counter, 5 repetitions, medians of them.
PyTorch: torch_timing.median_ms as compare_torch_ops.py calls it (median of
20 calls), then REPS single calls timed the same way: their median, mean and
90th percentile."""
import json
import statistics
import subprocess
import sys
import time

import torch

sys.path.insert(0, ".devpack")
from compare_torch_ops import torch_case  # noqa: E402
from torch_timing import median_ms  # noqa: E402

FILTERS = {
    "bench_gpu": "GpuSumRows|GpuFullSum|GpuFill|GpuEvalRoundTrip|GpuFullArgmax|"
                 "GpuCopy/33554432|GpuPlainCopyKernel/33554432|GpuAdd/33554432",
    "bench_linalg": "BM_Softmax/262144/128|BM_BatchedMatmul|BM_Matmul/1024/0/",
}


def torch_calls(fn, reps):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    wall = []
    for _ in range(reps):
        begin = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        wall.append((time.perf_counter() - begin) * 1e3)
    wall.sort()
    return statistics.median(wall), statistics.mean(wall), wall[int(0.9 * len(wall))]


def main():
    bin_dir = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    print(f"{'benchmark':<40}{'mlx mean':>9}{'mlx med':>9}{'torch m20':>10}"
          f"{'t med':>8}{'t mean':>8}{'t p90':>8}")
    for program, regex in FILTERS.items():
        out = subprocess.run([f"{bin_dir}/{program}", "--benchmark_format=json",
                              "--benchmark_repetitions=5", "--benchmark_report_aggregates_only=true",
                              f"--benchmark_filter={regex}"],
                             check=True, capture_output=True, text=True).stdout
        for b in json.loads(out)["benchmarks"]:
            if b.get("aggregate_name") != "median":
                continue
            scale = {"ms": 1.0, "us": 1e-3, "ns": 1e-6}[b["time_unit"]]
            per = 4 if b["run_name"].startswith("BM_Matmul/") else 1
            parts = b["run_name"].split("/")
            fn = torch_case(parts[0], [int(p) for p in parts[1:] if p.isdigit()])
            with torch.no_grad():
                m20 = median_ms(fn, 20)["wall"]
                med, mean, p90 = torch_calls(fn, reps)
            print(f"{b['run_name'].removesuffix('/real_time'):<40}"
                  f"{b['real_time'] * scale / per:9.4f}{b['wall_median'] * 1e3 / per:9.4f}"
                  f"{m20 / per:10.4f}{med / per:8.4f}{mean / per:8.4f}{p90 / per:8.4f}", flush=True)


if __name__ == "__main__":
    main()
