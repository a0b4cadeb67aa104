"""Counts the UDP datagrams to a destination port in a classic pcap file (Ethernet, IPv4) that
may still be being written: the e2e scripts wait with it until a capture has caught up."""
import struct
import sys


def count(path, port):
    with open(path, "rb") as handle:
        data = handle.read()
    if len(data) < 24:
        return 0
    endian = "<" if struct.unpack("<I", data[:4])[0] in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    offset, found = 24, 0
    while offset + 16 <= len(data):
        caplen = struct.unpack(endian + "I", data[offset + 8:offset + 12])[0]
        frame = data[offset + 16:offset + 16 + caplen]
        offset += 16 + caplen
        if len(frame) < caplen or len(frame) < 14 + 20 + 8 or frame[12:14] != b"\x08\x00":
            continue
        header = (frame[14] & 0x0F) * 4
        if frame[23] == 17 and struct.unpack(">H", frame[14 + header + 2:14 + header + 4])[0] == port:
            found += 1
    return found


if __name__ == "__main__":
    # With a third argument: exit 0 once the count has reached it (for wait_until).
    total = count(sys.argv[1], int(sys.argv[2]))
    if len(sys.argv) > 3:
        sys.exit(0 if total >= int(sys.argv[3]) else 1)
    print(total)
