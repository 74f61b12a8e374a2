# Emulation of m84: 8192-point-style split R2C columns first, the row pass two mirror lines a block,
# the last column stage formed on the loaded scratch rows before the row FFT.
import cmath, random

def dft(x, inv=False):
    n = len(x); s = 1 if inv else -1
    return [sum(x[j] * cmath.exp(s * 2j * cmath.pi * j * k / n) for j in range(n)) for k in range(n)]

def emulate(H, W, lines):
    n = W // 2; h2 = H // 2
    plane = [[random.uniform(-1, 1) for _ in range(W)] for _ in range(H)]
    # direct 2D DFT half spectrum
    want = [[sum(plane[y][x] * cmath.exp(-2j * cmath.pi * (ky * y / H + kx * x / W)) for y in range(H) for x in range(W))
             for kx in range(n + 1)] for ky in range(H)]
    # pass 1: plane read as h2 rows of 2n complex: row j = real rows 2j, 2j+1 as complex pairs
    prow = [[complex(plane[2 * j + (c // n)][2 * (c % n)], plane[2 * j + (c // n)][2 * (c % n) + 1]) for c in range(2 * n)]
            for j in range(h2)]
    scratch = [[0j] * (2 * n) for _ in range(h2)]
    for c in range(2 * n):
        col = dft([prow[j][c] for j in range(h2)])
        for k in range(h2): scratch[k][c] = col[k]
    # pass 2 (m84): pairs q in [0, h2): group g = q >> 1, which = q & 1; lines in a block: `lines` (even)
    out = [[None] * (n + 1) for _ in range(H)]
    blocks = h2 // (lines // 2)
    assert h2 % (lines // 2) == 0
    for bx in range(blocks):
        sm = {}
        rows_of = {}
        for line in range(lines):
            q = bx * (lines // 2) + line // 2
            g, which, second = q >> 1, q & 1, line & 1
            if g == 0:
                pair = (0, h2) if which == 0 else (h2 // 2, h2 // 2 + h2)
            else:
                a, b = g, h2 - g
                pair = (a, b + h2) if which == 0 else (a + h2, b)
            r = pair[second]
            k = r if r < h2 else r - h2
            sgn = 1 if r < h2 else -1
            w = cmath.exp(-2j * cmath.pi * k / H)
            z = [scratch[k][i] + sgn * w * scratch[k][n + i] for i in range(n)]
            sm[line] = dft(z)
            rows_of[line] = r
        for line in range(lines):
            r = rows_of[line]
            selfm = r == 0 or r == h2
            zr = sm[line]; zm = sm[line] if selfm else sm[line ^ 1]
            m = (H - r) % H
            assert selfm or rows_of[line ^ 1] == m, (r, rows_of[line ^ 1], m)
            for kx in range(n + 1):
                zk = zr[kx % n]; zmm = zm[(n - kx) % n].conjugate()
                A = (zk + zmm) / 2; B = -1j * (zk - zmm) / 2
                val = A + cmath.exp(-2j * cmath.pi * kx / W) * B
                assert out[r][kx] is None
                out[r][kx] = val
    err = max(abs(out[r][k] - want[r][k]) for r in range(H) for k in range(n + 1))
    scale = max(abs(want[r][k]) for r in range(H) for k in range(n + 1))
    return err / scale

random.seed(1)
for H, W, lines in [(8, 8, 2), (8, 4, 2), (16, 8, 2), (16, 8, 4), (16, 4, 8), (32, 4, 2), (4, 8, 2), (8, 16, 4)]:
    print(H, W, lines, "%.1e" % emulate(H, W, lines))
