"""check_png.py SVG PNG: the PNG chromium rendered has the SVG's size and is
not blank (many distinct pixel bytes)."""
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

svg, png = sys.argv[1:3]
root = ET.parse(svg).getroot()
w, h = int(root.get("width")), int(root.get("height"))
data = open(png, "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pw, ph = struct.unpack(">II", data[16:24])
idat = b""
pos = 8
while pos < len(data):
    (length,) = struct.unpack(">I", data[pos:pos + 4])
    kind = data[pos + 4:pos + 8]
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + length]
    pos += 12 + length
pixels = zlib.decompress(idat)
print(f"PNG {pw}x{ph} matches SVG {w}x{h}: {pw == w and ph == h}")
print(f"distinct bytes > 50: {len(set(pixels)) > 50}")
