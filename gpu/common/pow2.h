// Powers of two, for the host code of every floor (sizes, plans, the size policy): written once here.
#pragma once

namespace specview {

inline bool is_pow2(long long v) { return v > 0 && (v & (v - 1)) == 0; }
// The smallest power of two >= v, and the largest <= v (1 for v < 2).
inline int next_pow2(int v) {
    int p = 1;
    while (p < v) p <<= 1;
    return p;
}
inline int prev_pow2(int v) {
    int p = 1;
    while (p <= v / 2) p <<= 1;
    return p;
}
// log2 of a power of two (of the next one up for any other v >= 1).
inline int ilog2(long long v) {
    int l = 0;
    while ((1LL << l) < v) ++l;
    return l;
}

}  // namespace specview
