#!/usr/bin/env python3
"""png-info.py FILE [X Y W H]: "WIDTH HEIGHT COLOURS INK" of a PNG, or exits 1
saying why it is not one. COLOURS is how many distinct colours its pixels have
(counted up to 1000); INK is the share of its pixels, in per mille, that differ
from its commonest colour (the background): 0 is a blank page of one colour.
With a rectangle (pixels, cut to the picture), its own COLOURS and INK follow:
what was painted where a page's plot is.

The standard library only (zlib, struct): a machine with Debian's python3 and
no ImageMagick reads Chromium's screenshots. Takes what Chromium writes, 8-bit
non-interlaced greyscale, RGB or RGBA (and their alpha), and refuses the rest
by name rather than guessing."""

import struct
import sys
import zlib

CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # samples per pixel, by colour type


def fail(why):
    print(f"png-info: {sys.argv[1]}: {why}", file=sys.stderr)
    sys.exit(1)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def main():
    if len(sys.argv) not in (2, 6):
        print("usage: png-info.py FILE [X Y W H]", file=sys.stderr)
        sys.exit(2)
    try:
        rx, ry, rw, rh = (int(float(v)) for v in sys.argv[2:6]) if len(sys.argv) == 6 else (0, 0, 0, 0)
    except ValueError:
        print("png-info: the rectangle is X Y W H, in pixels", file=sys.stderr)
        sys.exit(2)
    try:
        with open(sys.argv[1], "rb") as f:
            data = f.read()
    except OSError as e:
        fail(e.strerror)
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("not a PNG (no PNG signature)")
    pos, idat, ihdr = 8, [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if len(body) != length or zlib.crc32(kind + body) != struct.unpack(
                ">I", data[pos + 8 + length:pos + 12 + length] or b"\0\0\0\0")[0]:
            fail(f"chunk {kind!r} is cut short or its CRC is wrong")
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    else:
        fail("no IEND chunk: the file is cut short")
    if not ihdr or not idat:
        fail("no IHDR or no IDAT chunk")
    width, height, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in CHANNELS or interlace:
        fail(f"bit depth {depth}, colour type {ctype}, interlace {interlace}: not read here")
    bpp = CHANNELS[ctype]
    stride = width * bpp
    try:
        raw = zlib.decompress(b"".join(idat))
    except zlib.error as e:
        fail(f"its image data does not inflate: {e}")
    if len(raw) != height * (stride + 1):
        fail(f"{len(raw)} bytes of image data, {height * (stride + 1)} expected")
    counts, region, prev = {}, {}, bytearray(stride)
    x0, x1 = max(rx, 0) * bpp, min(rx + rw, width) * bpp
    for y in range(height):
        ftype, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ftype == 1:
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 255
        elif ftype == 2:
            for i in range(stride):
                row[i] = (row[i] + prev[i]) & 255
        elif ftype == 3:
            for i in range(stride):
                row[i] = (row[i] + ((row[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif ftype == 4:
            for i in range(stride):
                row[i] = (row[i] + paeth(row[i - bpp] if i >= bpp else 0, prev[i],
                                         prev[i - bpp] if i >= bpp else 0)) & 255
        elif ftype != 0:
            fail(f"row {y} has the unknown filter {ftype}")
        for x in range(0, stride, bpp):
            px = bytes(row[x:x + bpp])
            counts[px] = counts.get(px, 0) + 1
        if ry <= y < ry + rh:
            for x in range(x0, x1, bpp):
                px = bytes(row[x:x + bpp])
                region[px] = region.get(px, 0) + 1
        prev = row
    def stats(counts):
        total = sum(counts.values())
        if not total:
            return [0, 0]
        return [min(len(counts), 1000), (total - max(counts.values())) * 1000 // total]

    print(width, height, *stats(counts), *(stats(region) if len(sys.argv) == 6 else []))


if __name__ == "__main__":
    main()
