#!/usr/bin/env python3
"""Turns pcap files into libFuzzer seed inputs for Fuzz/: one input per chunk of frames, in the
harness's format (selector byte, then per frame an optional 8-byte big-endian capture time and a
2-byte big-endian length + frame bytes; see Fuzz/Sources/NetQualityFuzz/FuzzTarget.swift).
Each chunk gives a steady-time seed and stamped seeds with the capture's own times and with
hostile ones (one packet an hour early, a step back of years, the end of 64-bit time)."""
import os
import struct
import sys

# Selector order of Fuzz/Sources/NetQualityFuzz/FuzzTarget.swift.
SELECTOR = {1: 0, 113: 1, 276: 2, 0: 3, 108: 4, 101: 5, 228: 6, 229: 7}


def frames(path):
    with open(path, "rb") as handle:
        data = handle.read()
    if len(data) < 24:
        return None, []
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        endian = "<"
    elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
        endian = ">"
    else:
        return None, []  # pcapng and others: skipped, the seeds need only some variety
    nanoseconds = magic in (0xA1B23C4D, 0x4D3CB2A1)
    link = struct.unpack(endian + "I", data[20:24])[0]
    offset, found = 24, []
    while offset + 16 <= len(data):
        seconds, fraction, caplen = struct.unpack(endian + "III", data[offset:offset + 12])
        offset += 16
        stamp = seconds * 10**9 + (fraction if nanoseconds else fraction * 1000)
        found.append((stamp, data[offset:offset + caplen][:65535]))
        offset += caplen
    return link, found


STAMPED = 8
HOUR = 3600 * 10**9
YEARS = 7 * 365 * 86400 * 10**9
END = 2**63 - 1


def hostile(stamps):
    """The capture's own times, then versions a clock or a crafted file could give."""
    middle = len(stamps) // 2
    yield "own", stamps
    yield "hour-early", [t - HOUR if i == middle else t for i, t in enumerate(stamps)]
    yield "years-back", [t - YEARS if i >= middle else t for i, t in enumerate(stamps)]
    yield "end-of-time", [END - 10**9 + t - stamps[0] for t in stamps]
    yield "epoch", [0 for _ in stamps]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    count = 0
    for path in sys.argv[2:]:
        link, packets = frames(path)
        if link not in SELECTOR:
            continue
        for start in range(0, min(len(packets), 400), 20):
            chunk = packets[start:start + 20]
            blob = bytes([SELECTOR[link]])
            for _, frame in chunk:
                blob += struct.pack(">H", len(frame)) + frame
            name = "%s-%d" % (os.path.basename(path), start)
            with open(os.path.join(out, name), "wb") as handle:
                handle.write(blob)
            count += 1
            if start % 100 != 0:
                continue  # stamped seeds from every fifth chunk: variety, not volume
            for variant, stamps in hostile([stamp for stamp, _ in chunk]):
                blob = bytes([SELECTOR[link] | STAMPED])
                for stamp, (_, frame) in zip(stamps, chunk):
                    blob += struct.pack(">QH", stamp % 2**64, len(frame)) + frame
                with open(os.path.join(out, "%s-%s" % (name, variant)), "wb") as handle:
                    handle.write(blob)
                count += 1
    print("%d seed inputs in %s" % (count, out))


if __name__ == "__main__":
    main()
