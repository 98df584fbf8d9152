"""The timing that every bench/compare_torch*.py script shares."""
import statistics
import time

import torch


def median_ms(fn, reps, warmup=3):
    """Two medians of `reps` runs, in ms: "wall", from the call until the
    result is ready on the host (time.perf_counter around fn() and
    torch.cuda.synchronize(), as Google Benchmark's real time covers an
    mlx_lite eval(), which submits and waits); and "gpu", between CUDA events
    recorded around fn() (the launches' GPU time, without the final wait)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    wall, gpu = [], []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin = time.perf_counter()
        start.record()
        fn()
        stop.record()
        torch.cuda.synchronize()
        wall.append((time.perf_counter() - begin) * 1e3)
        gpu.append(start.elapsed_time(stop))
    return {"wall": statistics.median(wall), "gpu": statistics.median(gpu)}


def mlx_wall_ms(benchmark):
    """The mlx_lite figure to set beside median_ms's "wall", in ms, from one
    Google Benchmark result: the eval loop's median iteration (the
    wall_median counter, in seconds) where the program reports it, else
    Google Benchmark's real time (the mean iteration)."""
    if "wall_median" in benchmark:
        return benchmark["wall_median"] * 1e3
    return benchmark["real_time"] * {"ms": 1.0, "us": 1e-3, "ns": 1e-6}[benchmark["time_unit"]]
