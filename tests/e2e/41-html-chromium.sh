# The HTML report of a real run, opened in headless Chromium: its screenshot
# is not blank (plots rendered: many distinct colours, ink over much of the
# page), and the page is self-contained (no outside references).
source "$KILN_ROOT/tests/lib.sh"
CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || skip "chromium not installed"
make_suite
cd "$T"
cat > h.yaml <<Y
pexecs: 3
iterations: 60
seed: 1
vms:
  native: {plugin: c}
  fake: {plugin: external, runner: [$FAKE, ok, "{iterations}", "0"], language: c, entry: bench.c}
benchmarks: {spin: 20000}
Y
"$KILN" run -q h.yaml || fail "run"
"$KILN" report h.kiln.db --format html -o report.html || fail "report"
grep -qiE '<(script|link|img)[^>]* (src|href)="?https?:' report.html && fail "the page loads something from outside"
n_svg=$(grep -o '<svg' report.html | wc -l)
[ "$n_svg" -ge 2 ] || fail "expected inline SVG plots, found $n_svg"
timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$T/profile" --window-size=1280,2000 --screenshot="$T/shot.png" \
	"file://$T/report.html" >/dev/null 2>&1
[ -s shot.png ] || fail "no screenshot"
python3 - "$T/shot.png" <<'P' || fail "screenshot looks blank"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w, h = 8, b"", 0, 0
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
rows, prev = [], bytearray(stride)
i = 0
for y in range(h):
    f = raw[i]; i += 1
    line = bytearray(raw[i:i + stride]); i += stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line)); prev = line
colours, ink = set(), 0
for y in range(0, h, 4):
    r = rows[y]
    for x in range(0, w, 4):
        px = r[x * bpp:x * bpp + 3]
        colours.add(px)
        if px != b"\xff\xff\xff":
            ink += 1
total = (h // 4) * (w // 4)
print(f"{w}x{h}, {len(colours)} colours, {100 * ink / total:.1f}% ink")
assert len(colours) >= 20, "too few colours: no plots?"
assert ink / total > 0.05, "mostly blank"
P
echo ok
