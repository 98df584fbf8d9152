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
