"""An independent numpy implementation of the motion-sensor analysis (docs/motion-sensors.md), to check MotionCore's.

    .venv/bin/python blackbox/motion/sparc_reference.py INPUT.json      (or - for stdin)

INPUT is `{"rate": 100, "gravityCutoff": 0.3, "recentSeconds": 2, "tremorBand": [4, 12], "cases": [...]}`, each case
`{"name": ..., "samples": [[t, ax, ay, az], ...], "windows": [[start, end], ...]}`. Prints one JSON object:
`{"cases": [{"name": ..., "recent": {"rms": ..., "tremor": ...}, "windows": [{"rms", "tremor", "sparc"}, ...]}]}`.

Written from the definitions, not from the Swift code: numpy's `interp` for the resampling, the Butterworth
coefficients from the bilinear transform, `numpy.fft.rfft` for the band share, and SPARC from its definition in
Balasubramanian et al. 2015 (J NeuroEng Rehabil 12:112), on one zero-padded `numpy.fft.rfft` of the whole profile.
Used by Tests/MotionCoreTests/MotionReferenceTests.swift. Needs numpy (in the project's .venv: `make deps`); without
it the script exits 2 with a message saying so.
"""

import json
import math
import sys

try:
    import numpy as np
except ImportError:  # pragma: no cover - depends on the machine
    print(
        "sparc_reference.py: the Python package 'numpy' is missing; `make deps` installs it into .venv "
        "(run .venv/bin/python blackbox/motion/sparc_reference.py)",
        file=sys.stderr,
    )
    sys.exit(2)


def resample(samples, rate):
    """Grid times t0 + k/rate up to the last sample, and the linearly interpolated acceleration on them."""
    t = samples[:, 0]
    grid = t[0] + np.arange(int((t[-1] - t[0]) * rate) + 2) / rate
    grid = grid[grid <= t[-1]]
    return grid, np.stack([np.interp(grid, t, samples[:, axis]) for axis in (1, 2, 3)], axis=1)


def butterworth_lowpass(cutoff, rate):
    """Second-order Butterworth low-pass (b, a) by the bilinear transform with a prewarped cut-off."""
    k = math.tan(math.pi * cutoff / rate)
    norm = 1 / (1 + math.sqrt(2) * k + k * k)
    b = np.array([k * k, 2 * k * k, k * k]) * norm
    a = np.array([1, 2 * (k * k - 1) * norm, (1 - math.sqrt(2) * k + k * k) * norm])
    return b, a


def remove_gravity(values, cutoff, rate):
    """values minus their low-pass, the filter starting as if the first value had always been there."""
    b, a = butterworth_lowpass(cutoff, rate)
    gravity = np.empty_like(values)
    for axis in range(values.shape[1]):
        x = values[:, axis]
        # Direct form I: past inputs and outputs all equal to the first value (unit gain at DC).
        x1 = x2 = y1 = y2 = x[0]
        for i, xi in enumerate(x):
            yi = b[0] * xi + b[1] * x1 + b[2] * x2 - a[1] * y1 - a[2] * y2
            gravity[i, axis] = yi
            x2, x1, y2, y1 = x1, xi, y1, yi
    return values - gravity


def band_share(window, rate, band):
    """Share of one-sided power (bin 0 left out) in band: mean removed, Hann window, padded to a power of two."""
    n = len(window)
    length = 1 << (n - 1).bit_length()
    frequencies = np.fft.rfftfreq(length, 1 / rate)
    weights = np.full(len(frequencies), 2.0)
    weights[0] = 0
    weights[-1] = 1
    in_band = (frequencies >= band[0]) & (frequencies <= band[1])
    total = power_in_band = 0.0
    for axis in range(window.shape[1]):
        x = (window[:, axis] - window[:, axis].mean()) * np.hanning(n)
        power = np.abs(np.fft.rfft(x, length)) ** 2 * weights
        total += power.sum()
        power_in_band += power[in_band].sum()
    return power_in_band / total if total > 0 else 0.0


def speed_profile(window, rate):
    """Magnitude of the trapezoid-integrated velocity, its linear drift removed so it is 0 at both ends."""
    steps = (window[1:] + window[:-1]) / 2 / rate
    velocity = np.vstack([np.zeros((1, window.shape[1])), np.cumsum(steps, axis=0)])
    ramp = np.arange(len(window)) / (len(window) - 1)
    velocity -= ramp[:, None] * velocity[-1]
    return np.sqrt((velocity**2).sum(axis=1))


def sparc(speed, rate, pad_level=4, cutoff=10.0, threshold=0.05):
    """Spectral arc length of a speed profile, from the definition in Balasubramanian et al. 2015 (J NeuroEng
    Rehabil 12:112): the arc length of the normalised magnitude spectrum over frequencies normalised to the band
    kept, the band ending at `cutoff` and trimmed to where the spectrum is at least `threshold`; the FFT is zero-padded
    to 2^(ceil(log2 n) + pad_level) points."""
    points = 2 ** (math.ceil(math.log2(len(speed))) + pad_level)
    magnitude = np.abs(np.fft.rfft(speed, points))
    magnitude = magnitude / magnitude.max()
    frequency = np.fft.rfftfreq(points, 1.0 / rate)
    in_band = frequency <= cutoff
    frequency, magnitude = frequency[in_band], magnitude[in_band]
    loud = np.flatnonzero(magnitude >= threshold)
    frequency = frequency[loud[0] : loud[-1] + 1]
    magnitude = magnitude[loud[0] : loud[-1] + 1]
    steps = np.diff(frequency) / (frequency[-1] - frequency[0])
    return -float(np.sum(np.hypot(steps, np.diff(magnitude))))


def analyse(case, rate, cutoff, recent_seconds, band):
    grid, raw = resample(np.array(case["samples"], dtype=float)[:, :4], rate)
    free = remove_gravity(raw, cutoff, rate)
    recent = free[-int(round(recent_seconds * rate)) :]
    result = {
        "name": case["name"],
        "recent": {"rms": float(np.sqrt((recent**2).sum(axis=1).mean())), "tremor": float(band_share(recent, rate, band))},
        "windows": [],
    }
    for start, end in case["windows"]:
        first = max(0, math.ceil((start - grid[0]) * rate - 1e-9))
        last = min(len(grid) - 1, math.floor((end - grid[0]) * rate + 1e-9))
        window = free[first : last + 1]
        result["windows"].append(
            {
                "rms": float(np.sqrt((window**2).sum(axis=1).mean())),
                "tremor": float(band_share(window, rate, band)),
                "sparc": float(sparc(speed_profile(window, rate), rate)),
            }
        )
    return result


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    source = sys.stdin if sys.argv[1] == "-" else open(sys.argv[1], encoding="utf-8")
    with source:
        request = json.load(source)
    rate = request.get("rate", 100.0)
    cutoff = request.get("gravityCutoff", 0.3)
    recent_seconds = request.get("recentSeconds", 2.0)
    band = request.get("tremorBand", [4.0, 12.0])
    cases = [analyse(case, rate, cutoff, recent_seconds, band) for case in request["cases"]]
    json.dump({"cases": cases}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
