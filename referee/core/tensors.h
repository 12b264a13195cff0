/* tensors.h: the parts of the tensor writers the batch shares (not public: texas42.h is). */
#ifndef T42_TENSORS_H
#define T42_TENSORS_H

#include "texas42.h"

/* The lowest set bit of a mask (not 0). */
static inline int lowest(uint32_t x) {
#if defined(__GNUC__)
    return __builtin_ctz(x);
#else
    int n = 0;
    for (; !(x & 1); x >>= 1)
        n++;
    return n;
#endif
}

/* The first T42_STATE_HISTORY floats of `seat`'s information state: the dealer, the marks
 * before the hand, the tiles it was dealt (what a new hand changes besides the history). */
void t42_state_header(const t42_match *m, int seat, float *out);

/* History slot `k` of `seat`'s information state: `by` took `action` (two ones), or cleared. */
static inline void t42_state_acted(float *out, int seat, int k, int by, int action, float one) {
    float *slot = out + T42_STATE_HISTORY + k * T42_STATE_ACTED;
    slot[(by - seat) & 3] = one;
    slot[4 + action] = one;
}

#endif
