# m87/m88 (tests/device/pending/m86-m88.patch): the ring kernel's tiles -> TMA boxes -> staged [row][c] points ->
# output addresses, checked in plain Python against cols_block's grouped (and plane) reads: each tile's staged point is
# the one cols_block would load, and every output bin is written once. Run: python3 tests/device/pending/m88_emulation.py
# m88/m87 index emulation: tiles -> TMA boxes -> staged [row][c] -> output addresses, against cols_block's grouped reads.
def check(width, n, sub, grouped):
    C = 2; box_rows = 4  # (small n: box rows scaled down)
    ncols = width
    # source layout: grouped [col>>2][s0+r][col&3] with rows n*sub per group; or plane row-major [r][col] (sub 1)
    def src_addr(col, row):  # row in 0..n*sub
        if grouped:
            return ((col >> 2) * n * sub << 2) + (row << 2) + (col & 3)
        return row * ncols + col
    tiles = (ncols // C) * (sub if grouped else 1)
    seen_out = {}
    for tile in range(tiles):
        if grouped:
            pair, rest = tile & 1, tile >> 1
            half = rest % sub; group = rest // sub
            col0 = group * 4 + pair * C; x = pair * 2 * C; y0 = (group * sub + half) * n
            rowlen = 4  # points per tensor row
        else:
            col0 = tile * C; half = 0; x = 2 * tile * C; y0 = 0; rowlen = ncols
        staged = {}
        for i in range(n // box_rows):
            for rr in range(box_rows):
                for f in range(2 * C):  # floats
                    gy = y0 + i * box_rows + rr; gx = x + f
                    point = gy * rowlen + gx // 2
                    staged[((i * box_rows + rr) * C) + f // 2] = point
        for c in range(C):
            col = col0 + c
            for r in range(n):
                want = src_addr(col, half * n + r)
                got = staged[r * C + c]
                assert got == want, (width, n, sub, grouped, tile, c, r, got, want)
            for k in range(n):
                o = (k * sub + half) * width + col
                assert o not in seen_out, ("twice", o)
                seen_out[o] = 1
    assert len(seen_out) == width * n * sub, (len(seen_out), width * n * sub)
for grouped, sub in ((True, 1), (True, 2), (False, 1)):
    for width in (4, 8, 16, 32):
        for n in (8, 16):
            check(width, n, sub, grouped)
print("ok: every tile reads what cols_block reads and every output bin is written once")
