"""Where a server's CPU went, from a `perf record -g` profile: the share of each part of the live path.

Reads `perf report` twice: self time by shared object and symbol (user space by the Swift module its mangled symbol
names, kernel as one), and inclusive time under the kernel's system-call entry points, to split the kernel's share
into receiving, sending (on loopback the receiver's TCP processing runs in the sender's system call) and waiting.
Prints one JSON object: part name -> share of all samples (0...1).
"""

import json
import re
import subprocess
import sys

# Swift modules (the first length-prefixed identifier of a `$s…` symbol) to the part they belong to.
MODULES = {
    "HTTPServer": "WebSocket and HTTP core",
    "HTTPWire": "WebSocket and HTTP core",
    "CNetShim": "WebSocket and HTTP core",
    "NetCore": "WebSocket and HTTP core",
    "WebSocketCore": "WebSocket and HTTP core",
    "Basics": "WebSocket and HTTP core",
    "PortableBasics": "WebSocket and HTTP core",
    "MotionCore": "engine",
    "SessionStore": "store",
    "MotionServer": "session glue",
}
# System calls by the kernel functions that enter them (several nest: the largest inclusive share of each counts).
SYSCALL = re.compile(r"^(?:__x64_sys_|__do_sys_|__sys_|ksys_|do_)([a-z_0-9]+)$")
KERNEL_PARTS = {
    "receive": {"read", "readv", "recvfrom", "recvmsg"},
    "send": {"write", "writev", "sendto", "sendmsg"},
    "wait": {"epoll_wait", "epoll_pwait", "epoll_pwait2", "futex", "nanosleep", "clock_nanosleep"},
}
OUR_MODULES = "|".join(sorted(set(MODULES) | {"MotionWire"}))

def report(data, *extra):
    out = subprocess.run(
        ["perf", "report", "-i", data, "--stdio", "-q", "--percent-limit", "0", *extra],
        check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        match = re.match(r"\s*([\d.]+)%\s+(?:([\d.]+)%\s+)?(\S+)\s+\[[.k]\]\s+(.*)$", line)
        if match:
            yield float(match.group(1)) / 100, match.group(3), match.group(4).strip()


def module_of(symbol):
    """The Swift module a mangled symbol belongs to: its first identifier, or for an extension of a standard type
    (`$sSa10MotionWire…`) the first of ours named in it."""
    match = re.match(r"\$s(\d+)", symbol)
    if match:
        length = int(match.group(1))
        return symbol[match.end():match.end() + length]
    embedded = re.search(r"\d+(" + OUR_MODULES + ")", symbol) if symbol.startswith("$s") else None
    return embedded.group(1) if embedded else None


def part_of(dso, symbol):
    if dso.startswith("[kernel"):
        return "kernel"
    if "sqlite" in dso:
        return "store"
    if dso.startswith("libm."):
        return "engine"  # atan2, hypot: the engine's angles
    if dso.startswith("libswiftCore") and "ToASCII" in symbol:
        return "snapshot and event encoding"  # number formatting
    if dso.startswith("libswift") or dso.startswith("libFoundation") or dso.startswith("libdispatch"):
        return "Swift runtime (retain/release, allocation)"
    if dso.startswith("libc") or dso.startswith("ld-linux"):
        return "libc (malloc, memcpy)"
    module = module_of(symbol)
    if module == "MotionWire":
        encoding = "Encoder" in symbol or "append" in symbol
        return "snapshot and event encoding" if encoding else "pose decoding"
    if module in MODULES:
        return MODULES[module]
    if symbol.startswith("$sS") or symbol.startswith("$ss"):
        return "Swift standard library (specialised in the binary)"
    return "other"


def main(data):
    shares = {}
    for share, dso, symbol in report(data, "--no-children", "--sort", "dso,sym"):
        part = part_of(dso, symbol)
        shares[part] = shares.get(part, 0) + share
    kernel = shares.pop("kernel", 0)
    calls = {}
    for share, _dso, symbol in report(data, "--children", "--sort", "dso,sym"):
        match = SYSCALL.match(symbol)
        if match:
            calls[match.group(1)] = max(calls.get(match.group(1), 0), share)
    split = {part: sum(calls.get(name, 0) for name in names) for part, names in KERNEL_PARTS.items()}
    # Inclusive shares of the system calls hold their kernel time only (user space never runs under them).
    total = sum(split.values())
    if total > kernel:  # nested entry points counted twice: scale down to the kernel's own share
        split = {name: value * kernel / total for name, value in split.items()}
    shares["kernel: receive (read)"] = split["receive"]
    shares["kernel: send (write, and loopback delivery)"] = split["send"]
    shares["kernel: waiting (epoll, futex, sleep)"] = split["wait"]
    shares["kernel: other (interrupts, scheduling, timers)"] = max(0.0, kernel - sum(split.values()))
    json.dump(shares, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
