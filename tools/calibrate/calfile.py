# SPDX-License-Identifier: Apache-2.0
"""calfile.py -- the calibration file of tools/calibrate without PyTorch:
the fits (GEMM t = F/R + tau, collective alpha-beta) and the writer.
Format: docs/models.md "Calibration files". Importable on a machine without
torch, so the file format is testable anywhere."""

import datetime
import json
import os
import tempfile

FORMAT = "wanka-calibration/1"

# values: keys wanka reads (it rejects any other key in `values:`)
VALUE_KEYS = (
    "gemm_bf16_tflops", "gemm_bf16_tail_us", "gemm_fp8_tflops", "gemm_fp8_tail_us",
    "attn_fwd_tflops", "attn_bwd_tflops", "memory_tb_per_s", "kernel_us",
    "allreduce_busbw_gb_per_s", "allreduce_step_us", "power_limit_w", "idle_w",
    "dispatch_us", "sustained_clock_mhz", "sustained_power_w", "gemm_bf16_sustained_tflops",
    "allreduce_small_us",
)

# Catalog SKUs by the device name the driver reports (first match wins).
SKU_BY_NAME = (
    ("H200", "H200-SXM"),
    ("H100 80GB HBM3", "H100-SXM-80G"),
    ("A100-SXM4-80GB", "A100-SXM-80G"),
    ("MI300X", "MI300X"),
)


def sku_for(device_name):
    """The catalog SKU of a device name, or None (then --sku is needed)."""
    for part, sku in SKU_BY_NAME:
        if part in device_name:
            return sku
    return None


def fit_rate_tail(points):
    """Least squares on relative time of t = F / R + tau over points
    [(flops, seconds)]: returns (R in FLOP/s, tau in s), tau >= 0. With
    x = 1/R, minimise sum (F_i/t_i x + 1/t_i tau - 1)^2."""
    a = [f / t for f, t in points]
    b = [1.0 / t for _, t in points]
    saa = sum(x * x for x in a)
    sab = sum(x * y for x, y in zip(a, b))
    sbb = sum(y * y for y in b)
    sa, sb = sum(a), sum(b)
    det = saa * sbb - sab * sab
    if len(points) >= 2 and det > 0:
        x = (sa * sbb - sb * sab) / det
        tau = (saa * sb - sab * sa) / det
        if x > 0 and tau >= 0:
            return 1.0 / x, tau
    # tau clamped at 0: x = sum(a) / sum(a^2)
    return saa / sa, 0.0


def fit_alpha_beta(points, steps, bytes_factor):
    """Fit t = steps * alpha + bytes_factor * S / B over points [(S bytes,
    seconds)] (least squares on relative time, as fit_rate_tail): returns
    (alpha s per step, B bytes/s)."""
    rate, tail = fit_rate_tail([(bytes_factor * s, t) for s, t in points])
    return tail / steps, rate


def rel_rms(points, rate, tail):
    """Root-mean-square relative error of t = F / rate + tail over points."""
    if not points:
        return 0.0
    e = [((f / rate + tail) / t - 1) ** 2 for f, t in points]
    return (sum(e) / len(e)) ** 0.5


def document(sku, device, values, detail, gpu="", driver="", cuda="", torch_version="", date=None):
    """The calibration document as a dict (values with None dropped)."""
    bad = [k for k in values if k not in VALUE_KEYS]
    if bad:
        raise ValueError("unknown calibration values: " + ", ".join(bad))
    return {
        "format": FORMAT,
        "sku": sku,
        "gpu": gpu,
        "date": date or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "driver": driver,
        "cuda": cuda,
        "torch": torch_version,
        "device": device,
        "values": {k: float(values[k]) for k in VALUE_KEYS if values.get(k) is not None},
        "detail": detail,
    }


def write(path, doc):
    """Write doc as JSON to path atomically: the whole file or nothing."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".calib-", suffix=".json", dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
