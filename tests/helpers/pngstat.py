#!/usr/bin/env python3
"""pngstat.py PNG [x0 y0 x1 y1]: what an image shows, for the tests that
render one (plots, the HTML report's screenshot).  Decodes an 8-bit RGB(A)
PNG with zlib alone and prints one line of JSON: width, height, the number
of distinct colours and the share of non-white pixels ("ink"), sampled on a
4-pixel grid, in the whole image or in the box given (pixels, top left
origin)."""
import json
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w, h, bpp = 8, b"", 0, 0, 3
    while pos < len(data):
        ln, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + ln]
        if typ == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
        pos += 12 + ln
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f = raw[i]
        i += 1
        line = bytearray(raw[i:i + stride])
        i += stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    w, h, bpp, rows = decode(sys.argv[1])
    x0, y0, x1, y1 = (int(v) for v in sys.argv[2:6]) if len(sys.argv) >= 6 else (0, 0, w, h)
    colours, ink, total = set(), 0, 0
    for y in range(y0, min(y1, h), 4):
        r = rows[y]
        for x in range(x0, min(x1, w), 4):
            px = r[x * bpp:x * bpp + 3]
            colours.add(px)
            ink += px != b"\xff\xff\xff"
            total += 1
    print(json.dumps({"width": w, "height": h, "colours": len(colours),
                      "ink": ink / total if total else 0}))


main()
