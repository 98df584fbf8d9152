#!/usr/bin/env python3
"""Chart of grid_sample times: mlx_lite's variants with PyTorch beside them.

    python3 bench/plot_grid_sample.py REPORT.json docs/grid_sample.png

REPORT.json is what `bench/compare_torch.py --json` wrote (Google Benchmark
medians of the mlx_lite programs and PyTorch's medians, call to result on
the host, as eval() is timed; one session). One panel per direction (forward; forward + backward or VJP) for
the seed's shape, bars sorted by time, PyTorch's in another colour.
Needs matplotlib (Debian: python3-matplotlib).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SEED = "8/1024/1024/64/256/256"


def main():
    report_path, png_path = sys.argv[1], sys.argv[2]
    with open(report_path) as f:
        report = json.load(f)
    shape = report["shapes"][SEED]
    rows = [(f"torch {k.removeprefix('torch_')}", v["wall"], True)
            for k, v in shape["torch"].items()]
    # Queued8 times eight forwards per eval: not one call.
    rows += [(f"mlx_lite {k}", v, False) for k, v in shape["mlx_lite"].items()
             if "Queued" not in k]
    panels = {
        "forward": [r for r in rows if "orward" in r[0] and "backward" not in r[0]
                    and "Vjp" not in r[0]],
        "backward (VJP, or forward + backward)": [r for r in rows if "backward" in r[0]
                                                  or "Vjp" in r[0]],
    }
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 7))
    for ax, (title, items) in zip(axes, panels.items()):
        items.sort(key=lambda r: r[1])
        names = [r[0] for r in items]
        times = [r[1] for r in items]
        colors = ["tab:orange" if r[2] else "tab:blue" for r in items]
        ax.barh(names, times, color=colors)
        for i, t in enumerate(times):
            ax.text(t, i, f" {t:.2f} ms", va="center", fontsize=8)
        ax.set_title(f"grid_sample {title}", fontsize=10)
        ax.set_xlabel("ms, median, from the call until the result is ready on the host")
        ax.invert_yaxis()
        ax.tick_params(axis="y", labelsize=8)
        ax.set_xlim(0, max(times) * 1.25)
    fig.suptitle(f"x 8x1024x1024x64, grid 8x256x256x2, float32 on {report['gpu']} "
                 f"(torch {report['torch']})", fontsize=10)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)


if __name__ == "__main__":
    main()
