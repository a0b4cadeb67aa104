#!/usr/bin/env python3
"""Turns pcap files into libFuzzer seed inputs for Fuzz/: one input per chunk of frames, in the
harness's format (link-type selector byte, then 2-byte big-endian length + frame bytes)."""
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
    link = struct.unpack(endian + "I", data[20:24])[0]
    offset, found = 24, []
    while offset + 16 <= len(data):
        caplen = struct.unpack(endian + "I", data[offset + 8:offset + 12])[0]
        offset += 16
        found.append(data[offset:offset + caplen][:65535])
        offset += caplen
    return link, found


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    count = 0
    for path in sys.argv[2:]:
        link, packets = frames(path)
        if link not in SELECTOR:
            continue
        for start in range(0, min(len(packets), 400), 20):
            blob = bytes([SELECTOR[link]])
            for frame in packets[start:start + 20]:
                blob += struct.pack(">H", len(frame)) + frame
            with open(os.path.join(out, "%s-%d" % (os.path.basename(path), start)), "wb") as handle:
                handle.write(blob)
            count += 1
    print("%d seed inputs in %s" % (count, out))


if __name__ == "__main__":
    main()
