/* test_layout.c: element counts, byte extents (negative, zero and huge
 * strides), bounds checks against a storage, contiguity. */
#include "libtensor.h"
#include "minitest.h"

int main(void)
{
    int64_t n = 0, lo = 0, hi = 0;
    int64_t s23[2] = {2, 3}, c23[2] = {3, 1}, t23[2] = {1, 2};
    CHECK_INT(lt_layout_numel(&n, 2, s23), LT_OK);
    CHECK_INT(n, 6);
    CHECK_INT(lt_layout_numel(&n, 0, NULL), LT_OK);
    CHECK_INT(n, 1);
    CHECK_INT(lt_layout_numel(&n, 65, s23), LT_EINVAL);
    CHECK_INT(lt_layout_numel(&n, -1, s23), LT_EINVAL);
    CHECK_INT(lt_layout_numel(&n, 1, NULL), LT_EINVAL);
    int64_t huge[2] = {INT64_MAX / 2, 3};
    CHECK_INT(lt_layout_numel(&n, 2, huge), LT_EOVERFLOW);

    /* a 2x3 float32 view at offset 1 touches bytes [4, 28) */
    CHECK_INT(lt_layout_extent(&lo, &hi, 2, s23, c23, 1, 4), LT_OK);
    CHECK_INT(lo, 4);
    CHECK_INT(hi, 28);
    /* negative stride: x[::-1] of 5 elements at offset 4 */
    int64_t s5[1] = {5}, neg[1] = {-1}, zero[1] = {0};
    CHECK_INT(lt_layout_extent(&lo, &hi, 1, s5, neg, 4, 8), LT_OK);
    CHECK_INT(lo, 0);
    CHECK_INT(hi, 40);
    /* zero stride: five aliases of one element */
    CHECK_INT(lt_layout_extent(&lo, &hi, 1, s5, zero, 2, 2), LT_OK);
    CHECK_INT(lo, 4);
    CHECK_INT(hi, 6);
    /* empty views touch nothing, wherever they point */
    int64_t s0[2] = {0, 3};
    CHECK_INT(lt_layout_extent(&lo, &hi, 2, s0, c23, 7, 4), LT_OK);
    CHECK_INT(lo, 28);
    CHECK_INT(hi, 28);
    /* overflowing strides are refused, never wrapped */
    int64_t big[1] = {INT64_MAX / 2};
    CHECK_INT(lt_layout_extent(&lo, &hi, 1, s5, big, 0, 8), LT_EOVERFLOW);
    CHECK_INT(lt_layout_extent(&lo, &hi, 1, s5, NULL, 0, 8), LT_EINVAL);

    /* bounds against a 24-byte storage */
    CHECK_INT(lt_layout_check(2, s23, c23, 0, 4, 24), LT_OK);
    CHECK_INT(lt_layout_check(2, s23, c23, 1, 4, 24), LT_ERANGE);
    CHECK_STR(lt_last_error(), "view needs bytes [4, 28) but the storage holds 24 bytes");
    CHECK_INT(lt_layout_check(1, s5, neg, 3, 4, 24), LT_ERANGE);  /* would read before byte 0 */
    CHECK_INT(lt_layout_check(1, s5, neg, 4, 4, 24), LT_OK);
    CHECK_INT(lt_layout_check(2, s0, c23, 6, 4, 24), LT_OK);      /* empty at the very end */
    CHECK_INT(lt_layout_check(2, s0, c23, 7, 4, 24), LT_ERANGE);  /* empty beyond the end */
    CHECK_INT(lt_layout_check(0, NULL, NULL, 5, 4, 24), LT_OK);   /* scalar at bytes [20, 24) */
    CHECK_INT(lt_layout_check(0, NULL, NULL, 6, 4, 24), LT_ERANGE);

    /* Integer overflow at the edges of int64 and size_t: every case is an
     * error status (or an exact answer), never a wrapped value. */
    int64_t max1[1] = {INT64_MAX}, max2[2] = {INT64_MAX, 1}, two62[2] = {2, INT64_C(1) << 62};
    CHECK_INT(lt_layout_numel(&n, 1, max1), LT_OK);                 /* INT64_MAX itself is exact */
    CHECK_INT(n, INT64_MAX);
    CHECK_INT(lt_layout_numel(&n, 2, max2), LT_OK);
    CHECK_INT(lt_layout_numel(&n, 2, two62), LT_EOVERFLOW);         /* 2 * 2^62 = 2^63 wraps to INT64_MIN */
    int64_t three_max[3] = {INT64_MAX, 2, 0};
    CHECK_INT(lt_layout_numel(&n, 3, three_max), LT_EOVERFLOW);     /* the prefix overflows before the 0 */
    int64_t one[1] = {1}, two[1] = {2}, unit[1] = {1}, smin[1] = {INT64_MIN}, smax[1] = {INT64_MAX};
    /* hi = offset + 1 overflows for a one-element view at offset INT64_MAX */
    CHECK_INT(lt_layout_extent(&lo, &hi, 1, one, unit, INT64_MAX, 1), LT_EOVERFLOW);
    /* offset * itemsize overflows, also for a scalar and for an empty view */
    CHECK_INT(lt_layout_extent(&lo, &hi, 0, NULL, NULL, INT64_MAX / 4, 8), LT_EOVERFLOW);
    CHECK_INT(lt_layout_extent(&lo, &hi, 2, s0, c23, INT64_MAX / 4, 8), LT_EOVERFLOW);
    CHECK_INT(lt_layout_check(2, s0, c23, INT64_MAX / 4, 8, SIZE_MAX), LT_EOVERFLOW);
    /* (2-1) * INT64_MIN is representable, but offset -1 + INT64_MIN is not */
    CHECK_INT(lt_layout_extent(&lo, &hi, 1, two, smin, -1, 1), LT_EOVERFLOW);
    CHECK_INT(lt_layout_extent(&lo, &hi, 1, two, smin, 0, 1), LT_OK);
    CHECK_INT(lo, INT64_MIN);
    CHECK_INT(lt_layout_extent(&lo, &hi, 1, two, smin, 0, 2), LT_EOVERFLOW); /* lo * itemsize */
    CHECK_INT(lt_layout_check(1, two, smin, 0, 1, SIZE_MAX), LT_ERANGE);     /* reaches below byte 0 */
    /* INT64_MAX stride: the extent's hi + 1 overflows */
    CHECK_INT(lt_layout_extent(&lo, &hi, 1, two, smax, 0, 1), LT_EOVERFLOW);
    /* a storage larger than int64 (SIZE_MAX bytes) still compares exactly */
    CHECK_INT(lt_layout_check(1, s5, unit, 0, 8, SIZE_MAX), LT_OK);
    CHECK_INT(lt_layout_check(1, max1, unit, 0, 1, (size_t)INT64_MAX), LT_OK);
    CHECK_INT(lt_layout_check(1, max1, unit, 1, 1, (size_t)INT64_MAX), LT_EOVERFLOW);
    /* zero strides over INT64_MAX elements touch one element */
    CHECK_INT(lt_layout_check(1, max1, zero, 0, 8, 8), LT_OK);
    /* huge shape times a small stride: (shape-1)*stride overflows */
    CHECK_INT(lt_layout_extent(&lo, &hi, 1, max1, two, 0, 1), LT_EOVERFLOW);

    CHECK_INT(lt_layout_is_contiguous(2, s23, c23), 1);
    CHECK_INT(lt_layout_is_contiguous(2, s23, t23), 0);
    int64_t s13[2] = {1, 3}, odd[2] = {99, 1};
    CHECK_INT(lt_layout_is_contiguous(2, s13, odd), 1);           /* extent-1 strides are free */
    int64_t s03[2] = {0, 3}, junk[2] = {5, 7};
    CHECK_INT(lt_layout_is_contiguous(2, s03, junk), 1);          /* no elements */
    CHECK_INT(lt_layout_is_contiguous(0, NULL, NULL), 1);
    MT_DONE();
}
