/* test_layout.c: element counts, byte extents (negative, zero and huge
 * strides), bounds checks against a storage, contiguity, row-major strides,
 * view/reshape shape inference and strides, broadcasting, and the kernels'
 * dimension merging. */
#include <stddef.h>

#include "../../libtensor/src/internal.h"
#include "libtensor.h"
#include "minitest.h"

#define N(a) ((int32_t)(sizeof(a) / sizeof((a)[0])))

/* Checks every entry of an int64 array against the expected list. */
#define CHECK_ARRAY(got, ...)                                                  \
    do {                                                                       \
        const int64_t want_[] = {__VA_ARGS__};                                 \
        for (int32_t i_ = 0; i_ < N(want_); i_++)                              \
            if ((got)[i_] != want_[i_])                                        \
                MT_FAIL("%s[%d]: expected %" PRId64 ", got %" PRId64, #got,    \
                        (int)i_, want_[i_], (got)[i_]);                        \
    } while (0)

static void test_byte_extent(void)
{
    int64_t lo = -1, hi = -1;
    /* NumPy-style byte strides that are not multiples of the itemsize: a
     * 3x2 view of 4-byte items with a 6-byte row pitch and 5-byte columns */
    int64_t s32[2] = {3, 2}, odd[2] = {6, 5};
    CHECK_INT(lt_layout_byte_extent(&lo, &hi, 2, s32, odd, 1, 4), LT_OK);
    CHECK_INT(lo, 1);
    CHECK_INT(hi, 1 + 12 + 5 + 4);
    /* negative and zero byte strides: lo moves down, zero adds nothing */
    int64_t negzero[2] = {-7, 0};
    CHECK_INT(lt_layout_byte_extent(&lo, &hi, 2, s32, negzero, 20, 2), LT_OK);
    CHECK_INT(lo, 6);
    CHECK_INT(hi, 22);
    /* the inspector's example: flipped columns */
    int64_t fl[2] = {8, -4};
    CHECK_INT(lt_layout_byte_extent(&lo, &hi, 2, s32, fl, 4, 4), LT_OK);
    CHECK_INT(lo, 0);
    CHECK_INT(hi, 24);
    /* zero-size: nothing touched, at byte_offset */
    int64_t s0[2] = {0, 3};
    CHECK_INT(lt_layout_byte_extent(&lo, &hi, 2, s0, odd, 9, 4), LT_OK);
    CHECK_INT(lo, 9);
    CHECK_INT(hi, 9);
    /* ndim 0: one element at byte_offset */
    CHECK_INT(lt_layout_byte_extent(&lo, &hi, 0, NULL, NULL, 3, 8), LT_OK);
    CHECK_INT(lo, 3);
    CHECK_INT(hi, 11);
    /* an extent-1 dimension contributes nothing, whatever its stride */
    int64_t one[1] = {1}, smin[1] = {INT64_MIN}, smax[1] = {INT64_MAX};
    CHECK_INT(lt_layout_byte_extent(&lo, &hi, 1, one, smin, 0, 8), LT_OK);
    CHECK_INT(hi, 8);
    CHECK_INT(lt_layout_extent(&lo, &hi, 1, one, smax, 0, 8), LT_OK); /* INT64_MAX * 8 never formed */
    CHECK_INT(hi, 8);
    /* overflow-adjacent: exactly INT64_MAX is exact, one more is refused */
    int64_t two[1] = {2}, big[1] = {INT64_MAX - 8};
    CHECK_INT(lt_layout_byte_extent(&lo, &hi, 1, two, big, 0, 8), LT_OK);
    CHECK_INT(hi, INT64_MAX);
    CHECK_INT(lt_layout_byte_extent(&lo, &hi, 1, two, big, 1, 8), LT_EOVERFLOW);
    CHECK_INT(lt_layout_byte_extent(&lo, &hi, 1, two, smin, 0, 1), LT_OK);
    CHECK_INT(lo, INT64_MIN);
    CHECK_INT(lt_layout_byte_extent(&lo, &hi, 1, two, smin, -1, 1), LT_EOVERFLOW);
    CHECK_INT(lt_layout_byte_extent(&lo, &hi, 1, two, smax, 0, 1), LT_EOVERFLOW);
    CHECK_INT(lt_layout_byte_extent(&lo, &hi, 1, two, NULL, 0, 1), LT_EINVAL);
    CHECK_INT(lt_layout_byte_extent(&lo, &hi, 1, two, smin, 0, (size_t)INT64_MAX + 1), LT_EOVERFLOW);
    /* lt_layout_extent is the byte rule with strides and offset scaled */
    int64_t s23[2] = {2, 3}, el[2] = {-3, 2}, by[2] = {-24, 16}, lo2, hi2;
    CHECK_INT(lt_layout_extent(&lo, &hi, 2, s23, el, 5, 8), LT_OK);
    CHECK_INT(lt_layout_byte_extent(&lo2, &hi2, 2, s23, by, 40, 8), LT_OK);
    CHECK_INT(lo, lo2);
    CHECK_INT(hi, hi2);
}

static void test_contiguous(void)
{
    int64_t out[4] = {-1, -1, -1, -1};
    int64_t s234[3] = {2, 3, 4};
    CHECK_INT(lt_layout_contiguous_strides(out, 3, s234), LT_OK);
    CHECK_ARRAY(out, 12, 4, 1);
    /* extent-0 dimensions count as 1 (torch's rule) */
    int64_t s203[3] = {2, 0, 3};
    CHECK_INT(lt_layout_contiguous_strides(out, 3, s203), LT_OK);
    CHECK_ARRAY(out, 3, 3, 1);
    CHECK_INT(lt_layout_contiguous_strides(NULL, 0, NULL), LT_OK);
    /* the outermost extent is never multiplied in, so it may be huge */
    int64_t hugeouter[2] = {INT64_MAX, 4};
    CHECK_INT(lt_layout_contiguous_strides(out, 2, hugeouter), LT_OK);
    CHECK_ARRAY(out, 4, 1);
    int64_t atmax[3] = {5, INT64_C(1) << 31, INT64_C(1) << 31}; /* stride[0] = 2^62: fits */
    CHECK_INT(lt_layout_contiguous_strides(out, 3, atmax), LT_OK);
    CHECK_ARRAY(out, INT64_C(1) << 62, INT64_C(1) << 31, 1);
    int64_t over[3] = {5, INT64_C(1) << 32, INT64_C(1) << 31}; /* stride[0] = 2^63 */
    CHECK_INT(lt_layout_contiguous_strides(out, 3, over), LT_EOVERFLOW);
    int64_t neg[2] = {2, -1};
    CHECK_INT(lt_layout_contiguous_strides(out, 2, neg), LT_EINVAL);
    CHECK_INT(lt_layout_contiguous_strides(out, 65, s234), LT_EINVAL);

    /* is_contiguous agrees with the strides computed above, and is exact
     * where expected overflows (no stride can equal it) */
    CHECK_INT(lt_layout_contiguous_strides(out, 3, s234), LT_OK);
    CHECK_INT(lt_layout_is_contiguous(3, s234, out), 1);
    int64_t wide[3] = {2, INT64_C(1) << 62, 4}, wst[3] = {0, 4, 1};
    CHECK_INT(lt_layout_is_contiguous(3, wide, wst), 0);
    int64_t wide1[3] = {1, INT64_C(1) << 62, 4};
    CHECK_INT(lt_layout_is_contiguous(3, wide1, wst), 1);
}

static void test_infer_shape(void)
{
    int64_t out[4] = {0};
    int64_t a[2] = {2, -1};
    CHECK_INT(lt_layout_infer_shape(out, 2, a, 6), LT_OK);
    CHECK_ARRAY(out, 2, 3);
    CHECK_INT(lt_layout_infer_shape(out, 2, a, 7), LT_EINVAL);
    CHECK_STR(lt_last_error(), "shape '[2, -1]' is invalid for input of size 7");
    int64_t two_inferred[3] = {-1, 2, -1};
    CHECK_INT(lt_layout_infer_shape(out, 3, two_inferred, 4), LT_EINVAL);
    CHECK_STR(lt_last_error(), "only one dimension can be inferred");
    int64_t bad[3] = {-1, -3, -2};
    CHECK_INT(lt_layout_infer_shape(out, 3, bad, 6), LT_EINVAL);
    CHECK_STR(lt_last_error(), "invalid shape dimension -3");
    int64_t plain[2] = {4, 5};
    CHECK_INT(lt_layout_infer_shape(out, 2, plain, 20), LT_OK);
    CHECK_ARRAY(out, 4, 5);
    CHECK_INT(lt_layout_infer_shape(out, 2, plain, 21), LT_EINVAL);
    CHECK_STR(lt_last_error(), "shape '[4, 5]' is invalid for input of size 21");
    /* ndim 0 holds one element */
    CHECK_INT(lt_layout_infer_shape(out, 0, NULL, 1), LT_OK);
    CHECK_INT(lt_layout_infer_shape(out, 0, NULL, 7), LT_EINVAL);
    CHECK_STR(lt_last_error(), "shape '[]' is invalid for input of size 7");
    /* zero-size: -1 next to a 0 cannot be resolved, even for 0 elements */
    int64_t z[2] = {0, -1};
    CHECK_INT(lt_layout_infer_shape(out, 2, z, 0), LT_EINVAL);
    CHECK_STR(lt_last_error(), "shape '[0, -1]' is invalid for input of size 0");
    int64_t z2[2] = {-1, 5};
    CHECK_INT(lt_layout_infer_shape(out, 2, z2, 0), LT_OK);
    CHECK_ARRAY(out, 0, 5);
    /* products past int64: never equal to numel; -1 resolves to 0 for 0 elements */
    int64_t huge[3] = {INT64_MAX, 4, -1};
    CHECK_INT(lt_layout_infer_shape(out, 3, huge, 0), LT_OK);
    CHECK_ARRAY(out, INT64_MAX, 4, 0);
    CHECK_INT(lt_layout_infer_shape(out, 3, huge, 8), LT_EINVAL);
    CHECK_STR(lt_last_error(), "shape '[9223372036854775807, 4, -1]' is invalid for input of size 8");
    int64_t huge2[2] = {INT64_C(1) << 62, 4};
    CHECK_INT(lt_layout_infer_shape(out, 2, huge2, 0), LT_EINVAL);
    /* out may be the input */
    int64_t inplace[3] = {3, -1, 2};
    CHECK_INT(lt_layout_infer_shape(inplace, 3, inplace, 30), LT_OK);
    CHECK_ARRAY(inplace, 3, 5, 2);
    CHECK_INT(lt_layout_infer_shape(out, 2, plain, -1), LT_EINVAL);
    /* the longest message fits whole: 64 twenty-digit sizes */
    int64_t many[LT_MAX_NDIM], big_out[LT_MAX_NDIM];
    for (int i = 0; i < LT_MAX_NDIM; i++)
        many[i] = INT64_MIN + i;
    CHECK_INT(lt_layout_infer_shape(big_out, LT_MAX_NDIM, many, 1), LT_EINVAL);
    CHECK_STR(lt_last_error(), "invalid shape dimension -9223372036854775808");
    for (int i = 0; i < LT_MAX_NDIM; i++)
        many[i] = INT64_MAX - i;
    CHECK_INT(lt_layout_infer_shape(big_out, LT_MAX_NDIM, many, 1), LT_EINVAL);
    const char *msg = lt_last_error();
    CHECK(strlen(msg) > 64 * 21);
    CHECK(strstr(msg, "9223372036854775744]' is invalid for input of size 1") != NULL);
}

static void test_view_strides(void)
{
    int64_t out[4] = {0};
    int ok = -1;
    /* contiguous 2x3 viewed as 3x2, and 6 */
    int64_t s23[2] = {2, 3}, c23[2] = {3, 1}, s32[2] = {3, 2}, s6[1] = {6};
    CHECK_INT(lt_layout_view_strides(out, &ok, 2, s23, c23, 2, s32), LT_OK);
    CHECK_INT(ok, 1);
    CHECK_ARRAY(out, 2, 1);
    /* a transpose cannot be flattened: no strides, not an error */
    int64_t t23[2] = {1, 2};
    CHECK_INT(lt_layout_view_strides(out, &ok, 2, s23, t23, 1, s6), LT_OK);
    CHECK_INT(ok, 0);
    /* negative strides split within their chunk: x[::-1] of 6 as 2x3 */
    int64_t n1[1] = {-1};
    CHECK_INT(lt_layout_view_strides(out, &ok, 1, s6, n1, 2, s23), LT_OK);
    CHECK_INT(ok, 1);
    CHECK_ARRAY(out, -3, -1);
    /* zero strides (an expanded dimension) split only into its own sizes */
    int64_t z[2] = {0, 1}, s2_3[3] = {2, 1, 3}, s16[2] = {1, 6};
    CHECK_INT(lt_layout_view_strides(out, &ok, 2, s23, z, 3, s2_3), LT_OK);
    CHECK_INT(ok, 1);
    CHECK_ARRAY(out, 0, 3, 1);
    CHECK_INT(lt_layout_view_strides(out, &ok, 2, s23, z, 2, s16), LT_OK);
    CHECK_INT(ok, 0);
    /* size-1 dimensions: a leading 1 takes the chunk's full span */
    int64_t s1_6[2] = {1, 6};
    CHECK_INT(lt_layout_view_strides(out, &ok, 1, s6, n1, 2, s1_6), LT_OK);
    CHECK_ARRAY(out, -6, -1);
    /* empty tensors: an unchanged shape keeps its strides, any other gets row-major ones */
    int64_t e[2] = {0, 3}, es[2] = {7, 9}, e2[3] = {3, 0, 2};
    CHECK_INT(lt_layout_view_strides(out, &ok, 2, e, es, 2, e), LT_OK);
    CHECK_INT(ok, 1);
    CHECK_ARRAY(out, 7, 9);
    CHECK_INT(lt_layout_view_strides(out, &ok, 2, e, es, 3, e2), LT_OK);
    CHECK_ARRAY(out, 2, 2, 1);
    /* ndim 0: row-major strides for any shape of one element */
    int64_t ones[2] = {1, 1};
    CHECK_INT(lt_layout_view_strides(out, &ok, 0, NULL, NULL, 2, ones), LT_OK);
    CHECK_INT(ok, 1);
    CHECK_ARRAY(out, 1, 1);
    CHECK_INT(lt_layout_view_strides(out, &ok, 1, s6, n1, 0, NULL), LT_OK); /* 6 elements as a scalar: no strides */
    CHECK_INT(ok, 0);
    /* huge strides: a chunk test whose product overflows simply ends the chunk */
    int64_t big_shape[2] = {4, 2}, big_st[2] = {1, INT64_C(1) << 62}, s8[1] = {8};
    CHECK_INT(lt_layout_view_strides(out, &ok, 2, big_shape, big_st, 1, s8), LT_OK);
    CHECK_INT(ok, 0);
    /* ... but a stride of the answer beyond int64 is refused */
    int64_t two[1] = {2}, st62[1] = {INT64_C(1) << 62}, s12[2] = {1, 2};
    CHECK_INT(lt_layout_view_strides(out, &ok, 1, two, st62, 2, s12), LT_EOVERFLOW);
    CHECK_INT(ok, 0);
    int64_t s21[2] = {2, 1};
    CHECK_INT(lt_layout_view_strides(out, &ok, 1, two, st62, 2, s21), LT_OK);
    CHECK_ARRAY(out, INT64_C(1) << 62, INT64_C(1) << 62);
    /* bad input */
    int64_t negs[1] = {-2};
    CHECK_INT(lt_layout_view_strides(out, &ok, 1, negs, n1, 1, s6), LT_EINVAL);
    CHECK_INT(lt_layout_view_strides(out, &ok, 1, s6, NULL, 1, s6), LT_EINVAL);
    int64_t ovf[2] = {INT64_C(1) << 62, 4};
    CHECK_INT(lt_layout_view_strides(out, &ok, 2, ovf, c23, 1, s6), LT_EOVERFLOW);
}

static void test_broadcast(void)
{
    int64_t out[LT_MAX_NDIM];
    int32_t nd = -1;
    int64_t a[2] = {2, 1}, b[1] = {3}, c[3] = {4, 1, 1};
    const int64_t *ab[3] = {a, b, NULL};
    int32_t ndims[3] = {2, 1, 0};
    CHECK_INT(lt_layout_broadcast_shapes(out, &nd, 3, ndims, ab), LT_OK);
    CHECK_INT(nd, 2);
    CHECK_ARRAY(out, 2, 3);
    const int64_t *ac[2] = {a, c};
    int32_t nac[2] = {2, 3};
    CHECK_INT(lt_layout_broadcast_shapes(out, &nd, 2, nac, ac), LT_OK);
    CHECK_INT(nd, 3);
    CHECK_ARRAY(out, 4, 2, 1);
    CHECK_INT(lt_layout_broadcast_shapes(out, &nd, 0, NULL, NULL), LT_OK);
    CHECK_INT(nd, 0);
    /* zero-size dims broadcast like any other size */
    int64_t z[2] = {0, 1}, z3[1] = {3};
    const int64_t *zz[2] = {z, z3};
    int32_t nzz[2] = {2, 1};
    CHECK_INT(lt_layout_broadcast_shapes(out, &nd, 2, nzz, zz), LT_OK);
    CHECK_ARRAY(out, 0, 3);
    /* torch's message names shapes[0]'s size at the same place from the end */
    int64_t x[2] = {2, 3}, y[1] = {4};
    const int64_t *xy[2] = {x, y};
    int32_t nxy[2] = {2, 1};
    CHECK_INT(lt_layout_broadcast_shapes(out, &nd, 2, nxy, xy), LT_EINVAL);
    CHECK_STR(lt_last_error(), "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
    int64_t p[1] = {5}, q[2] = {2, 5}, r[2] = {3, 5};
    const int64_t *pqr[3] = {p, q, r};
    int32_t npqr[3] = {1, 2, 2};
    CHECK_INT(lt_layout_broadcast_shapes(out, &nd, 3, npqr, pqr), LT_EINVAL);
    CHECK_STR(lt_last_error(), "The size of tensor a (1) must match the size of tensor b (3) at non-singleton dimension 0");
    int32_t toolong[1] = {65};
    CHECK_INT(lt_layout_broadcast_shapes(out, &nd, 1, toolong, xy), LT_EINVAL);
}

/* The kernels' dimension order: strides kept operand by operand
 * (op_step = row length, dim_step 1) and dimension by dimension
 * (op_step 1, dim_step = operand count) give the same answers. */
static void test_merge_dims(void)
{
    /* a contiguous 2x3x4 block and a transposed partner: dims 1 and 2 chain
     * in both operands, dim 0 does not chain in the second */
    int64_t shape[3] = {2, 3, 4};
    ptrdiff_t by_op[2][3] = {{12, 4, 1}, {1, 8, 2}};
    CHECK_INT(lt__layout_merge_dims(3, shape, 2, &by_op[0][0], 3, 1), 2);
    CHECK_ARRAY(shape, 2, 12);
    CHECK(by_op[0][0] == 12 && by_op[0][1] == 1 && by_op[1][0] == 1 && by_op[1][1] == 2);
    /* interleaved storage, as the walk keeps it */
    int64_t shape2[3] = {2, 3, 4};
    ptrdiff_t by_dim[3][2] = {{12, 1}, {4, 8}, {1, 2}};
    CHECK_INT(lt__layout_merge_dims(3, shape2, 2, &by_dim[0][0], 1, 2), 2);
    CHECK_ARRAY(shape2, 2, 12);
    CHECK(by_dim[1][0] == 1 && by_dim[1][1] == 2);
    /* sorting: densest innermost by operand 0, ties by operand 1, stable */
    int64_t shape3[3] = {4, 3, 2};
    ptrdiff_t ab[2][3] = {{1, -6, 3}, {5, 7, 9}};
    lt__layout_sort_dims(3, shape3, 2, &ab[0][0], 3, 1);
    CHECK_ARRAY(shape3, 3, 2, 4);
    CHECK(ab[0][0] == -6 && ab[0][1] == 3 && ab[0][2] == 1 && ab[1][0] == 7 && ab[1][2] == 5);
    int64_t shape3i[3] = {4, 3, 2};
    ptrdiff_t abi[3][2] = {{1, 5}, {-6, 7}, {3, 9}};
    lt__layout_sort_dims(3, shape3i, 2, &abi[0][0], 1, 2);
    CHECK_ARRAY(shape3i, 3, 2, 4);
    CHECK(abi[0][0] == -6 && abi[0][1] == 7 && abi[2][0] == 1 && abi[2][1] == 5);
    int64_t shape4[2] = {2, 3};
    ptrdiff_t cd[2][2] = {{4, 4}, {1, 2}};
    lt__layout_sort_dims(2, shape4, 2, &cd[0][0], 2, 1);
    CHECK_ARRAY(shape4, 3, 2); /* tie on operand 0, operand 1's larger |stride| goes outside */
    int64_t shape4s[3] = {2, 3, 5};
    ptrdiff_t same[3] = {4, 4, 4};
    lt__layout_sort_dims(3, shape4s, 1, same, 3, 1);
    CHECK_ARRAY(shape4s, 2, 3, 5); /* all tied: the order is kept (stable) */
    /* zero strides chain with zero strides; a product past ptrdiff_t chains with nothing */
    int64_t shape5[2] = {5, 7};
    ptrdiff_t zs[2] = {0, 0}, huge[2] = {PTRDIFF_MIN, (ptrdiff_t)1 << 62};
    CHECK_INT(lt__layout_merge_dims(2, shape5, 1, zs, 2, 1), 1);
    CHECK_INT(shape5[0], 35);
    int64_t shape6[2] = {2, 4};
    CHECK_INT(lt__layout_merge_dims(2, shape6, 1, huge, 2, 1), 2);
    /* ndim 0 and 1 are returned as they are */
    CHECK_INT(lt__layout_merge_dims(0, shape6, 1, huge, 2, 1), 0);
    CHECK_INT(lt__layout_merge_dims(1, shape6, 1, huge, 2, 1), 1);
}

/* layout_order.c: torch's result and preserve_format strides (the Python
 * differential tests compare them with torch over many layouts). */
static void test_result_order(void)
{
    int64_t out[3] = {0};
    int64_t s34[2] = {3, 4}, t34[2] = {1, 3}, r34[2] = {4, 1};
    const int64_t *shapes[2] = {s34, s34}, *strides[2] = {t34, t34};
    int32_t nd2[2] = {2, 2}, nd0[2] = {2, 0};
    CHECK_INT(lt_layout_result_strides(out, 2, s34, 2, nd2, shapes, strides), LT_OK); /* x.T + x.T */
    CHECK_INT(out[0], 1);
    CHECK_INT(out[1], 3);
    CHECK_INT(lt_layout_result_strides(out, 2, s34, 2, nd0, shapes, strides), LT_OK); /* x.T * 2 */
    CHECK_INT(out[0], 1);
    CHECK_INT(out[1], 3);
    strides[0] = r34; /* x + y.T: the first operand decides, as in torch */
    CHECK_INT(lt_layout_result_strides(out, 2, s34, 2, nd2, shapes, strides), LT_OK);
    CHECK_INT(out[0], 4);
    CHECK_INT(out[1], 1);
    int64_t s24[2] = {2, 4};
    shapes[1] = s24;
    CHECK_INT(lt_layout_result_strides(out, 2, s34, 2, nd2, shapes, strides), LT_EINVAL);
    CHECK(lt_layout_is_non_overlapping_and_dense(2, s34, t34));
    int64_t gaps[2] = {8, 1}, dense[2];
    CHECK(!lt_layout_is_non_overlapping_and_dense(2, s34, gaps));
    CHECK_INT(lt_layout_preserve_strides(dense, 2, s34, t34), LT_OK);
    CHECK_INT(dense[0], 1);
    CHECK_INT(dense[1], 3);
    int64_t gaps_t[2] = {2, 6}; /* a sliced transposed view: packed, dim order kept */
    CHECK_INT(lt_layout_preserve_strides(dense, 2, s34, gaps_t), LT_OK);
    CHECK_INT(dense[0], 1);
    CHECK_INT(dense[1], 3);
}

/* unsqueeze's stride (layout.c) and infer_dense_strides (layout_order.c). */
static void test_unsqueeze_and_dense_order(void)
{
    int64_t out[4] = {0};
    int64_t s23[2] = {2, 3}, c23[2] = {3, 1}, t23[2] = {1, 2};
    CHECK_INT(lt_layout_unsqueeze_strides(out, 2, s23, c23, 1), LT_OK);
    CHECK_ARRAY(out, 3, 3, 1); /* steps over the whole dim it is put before */
    CHECK_INT(lt_layout_unsqueeze_strides(out, 2, s23, t23, 2), LT_OK);
    CHECK_ARRAY(out, 1, 2, 1); /* at the end: 1 */
    CHECK_INT(lt_layout_unsqueeze_strides(out, 0, NULL, NULL, 0), LT_OK);
    CHECK_ARRAY(out, 1);
    int64_t in_place[3] = {3, 1, -1};
    CHECK_INT(lt_layout_unsqueeze_strides(in_place, 2, s23, in_place, 0), LT_OK);
    CHECK_ARRAY(in_place, 6, 3, 1);
    int64_t s20[2] = {2, 0}, huge[2] = {INT64_C(1) << 62, 1}; /* an empty view may carry such strides */
    CHECK_INT(lt_layout_unsqueeze_strides(out, 2, s20, huge, 0), LT_EOVERFLOW);
    CHECK_INT(lt_layout_unsqueeze_strides(out, 2, s20, huge, 1), LT_OK);
    CHECK_ARRAY(out, INT64_C(1) << 62, 0, 1);
    CHECK_INT(lt_layout_unsqueeze_strides(out, 2, s23, c23, 3), LT_EINVAL);
    CHECK_INT(lt_layout_unsqueeze_strides(out, 2, s23, c23, -1), LT_EINVAL);
    CHECK_INT(lt_layout_unsqueeze_strides(out, LT_MAX_NDIM, s23, c23, 0), LT_EINVAL);

    /* dense order whatever the layout: a transposed empty view keeps its dims' order */
    int64_t s03[2] = {0, 3}, t03[2] = {1, 0};
    CHECK_INT(lt_layout_infer_dense_strides(out, 2, s03, t03), LT_OK);
    CHECK_ARRAY(out, 3, 1); /* a zero stride keeps its row-major place */
    int64_t s203[3] = {2, 0, 3}, o203[3] = {1, 0, 2};
    CHECK_INT(lt_layout_infer_dense_strides(out, 3, s203, o203), LT_OK);
    CHECK_ARRAY(out, 1, 2, 2);
    int64_t s34[2] = {3, 4}, dense_t[2] = {1, 3};
    CHECK_INT(lt_layout_infer_dense_strides(out, 2, s34, dense_t), LT_OK);
    CHECK_ARRAY(out, 1, 3);
    int64_t neg[1] = {-1};
    CHECK_INT(lt_layout_infer_dense_strides(out, 1, neg, dense_t), LT_EINVAL);
    CHECK_INT(lt_layout_infer_dense_strides(out, 2, s34, NULL), LT_EINVAL);

    /* broadcast strides: torch's expand */
    int64_t s3[1] = {3}, one3[1] = {1}, s13[2] = {1, 3}, st13[2] = {5, 7}, s234[3] = {2, 3, 4};
    CHECK_INT(lt_layout_broadcast_strides(out, 2, s23, 1, s3, one3), LT_OK);
    CHECK_ARRAY(out, 0, 1); /* a missing leading dim walks with stride 0 */
    CHECK_INT(lt_layout_broadcast_strides(out, 2, s23, 2, s13, st13), LT_OK);
    CHECK_ARRAY(out, 0, 7); /* a stretched extent 1 too */
    CHECK_INT(lt_layout_broadcast_strides(out, 2, s13, 2, s13, st13), LT_OK);
    CHECK_ARRAY(out, 5, 7); /* an extent 1 that stays 1 keeps its stride */
    CHECK_INT(lt_layout_broadcast_strides(out, 2, s23, 2, s34, st13), LT_EINVAL);
    CHECK_INT(lt_layout_broadcast_strides(out, 2, s23, 3, s234, st13), LT_EINVAL);
}

/* diagonal, select, narrow, split and chunk: the view rules of the parts
 * of a tensor, against the element addresses they must reach. */
static void test_diagonal(void)
{
    int64_t shape[3], strides[3], off = -1;
    /* every diagonal of a 3x4 row-major view at offset 2 (and of its
     * transpose, negative strides) reaches element (i, i + k) or (i - k, i) */
    int64_t s34[2] = {3, 4}, layouts[3][2] = {{4, 1}, {1, 3}, {-4, -1}}, base[3] = {2, 0, 11};
    for (int l = 0; l < 3; l++)
        for (int64_t k = -5; k <= 5; k++) {
            CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s34, layouts[l], base[l], k, 0, 1), LT_OK);
            int64_t want_len = k >= 0 ? (4 - k < 3 ? 4 - k : 3) : (3 + k < 4 ? 3 + k : 4);
            CHECK_INT(shape[0], want_len > 0 ? want_len : 0);
            CHECK_INT(strides[0], layouts[l][0] + layouts[l][1]);
            if (shape[0] == 0)
                CHECK_INT(off, base[l]); /* an empty diagonal keeps the offset (torch) */
            for (int64_t i = 0; i < shape[0]; i++) {
                int64_t row = k >= 0 ? i : i - k, col = k >= 0 ? i + k : i;
                CHECK_INT(off + i * strides[0], base[l] + row * layouts[l][0] + col * layouts[l][1]);
            }
        }
    /* dims kept in order, the diagonal last; dim1 > dim2 walks the other way */
    int64_t s234[3] = {2, 3, 4}, c234[3] = {12, 4, 1};
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 3, s234, c234, 0, 1, 2, 0), LT_OK);
    CHECK_ARRAY(shape, 3, 1); /* min(shape[2], shape[0] - 1) */
    CHECK_ARRAY(strides, 4, 13);
    CHECK_INT(off, 12); /* one step along dim2 = 0 */
    /* size-0 dims: an empty diagonal at the same offset */
    int64_t s03[2] = {0, 3}, c03[2] = {3, 1};
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s03, c03, 7, 1, 0, 1), LT_OK);
    CHECK_INT(shape[0], 0);
    CHECK_INT(off, 7);
    /* in place: the outputs may be the inputs */
    int64_t ip_shape[3] = {2, 3, 4}, ip_strides[3] = {12, 4, 1};
    CHECK_INT(lt_layout_diagonal(ip_shape, ip_strides, &off, 3, ip_shape, ip_strides, 0, 0, 0, 2), LT_OK);
    CHECK_ARRAY(ip_shape, 3, 2);
    CHECK_ARRAY(ip_strides, 4, 13);
    /* int64 overflow: the stride of two 2^62 strides (torch refuses it too) */
    int64_t s11[2] = {1, 1}, s00[2] = {0, 0}, huge[2] = {INT64_C(1) << 62, INT64_C(1) << 62};
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s11, huge, 0, 0, 0, 1), LT_EOVERFLOW);
    CHECK_STR(lt_last_error(), "diagonal(0, 0, 1): the diagonal's stride, 4611686018427387904 + "
                               "4611686018427387904, overflows int64");
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s00, huge, 0, 0, 0, 1), LT_EOVERFLOW); /* even empty */
    int64_t mixed[2] = {INT64_MAX, INT64_MIN};
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s11, mixed, 0, 0, 0, 1), LT_OK);
    CHECK_INT(strides[0], -1);
    /* the start: offset * stride past int64 only matters when there are elements */
    int64_t s99[2] = {INT64_C(1) << 40, INT64_C(1) << 40}, tall[2] = {1, INT64_C(1) << 40};
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s99, tall, 0, INT64_C(1) << 20, 0, 1), LT_OK);
    CHECK_INT(off, INT64_C(1) << 60);
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s99, tall, 0, INT64_C(1) << 30, 0, 1), LT_EOVERFLOW);
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s99, tall, 0, -(INT64_C(1) << 30), 1, 0), LT_EOVERFLOW);
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s99, tall, 0, -(INT64_C(1) << 30), 0, 1), LT_OK);
    CHECK_INT(off, INT64_C(1) << 30);
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s11, c03, 0, INT64_MIN, 0, 1), LT_OK); /* empty */
    CHECK_INT(off, 0);
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s11, c03, 0, INT64_MAX, 0, 1), LT_OK);
    CHECK_INT(shape[0], 0);
    /* offset at the end of int64: element 0 past it is refused, not wrapped */
    int64_t s22[2] = {2, 2}, c22[2] = {2, 1};
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s22, c22, INT64_MAX - 1, 1, 0, 1), LT_OK);
    CHECK_INT(off, INT64_MAX);
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s22, c22, INT64_MAX, 1, 0, 1), LT_EOVERFLOW);
    /* refusals: fewer than 2 dims, a dim out of range, identical dims, bad shapes */
    int64_t s4[1] = {4}, neg[2] = {-1, 3};
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 1, s4, c03, 0, 0, 0, 0), LT_EINVAL);
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s34, c03, 0, 0, 0, 2), LT_EINVAL);
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s34, c03, 0, 0, -1, 1), LT_EINVAL);
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s34, c03, 0, 0, 1, 1), LT_EINVAL);
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, neg, c03, 0, 0, 0, 1), LT_EINVAL);
    CHECK_INT(lt_layout_diagonal(shape, strides, &off, 2, s34, NULL, 0, 0, 0, 1), LT_EINVAL);
}

static void test_select_narrow(void)
{
    int64_t shape[3], strides[3], off = -1;
    int64_t s234[3] = {2, 3, 4}, c234[3] = {12, 4, 1}, flip[3] = {12, -4, 1};
    CHECK_INT(lt_layout_select(shape, strides, &off, 3, s234, c234, 5, 1, 2), LT_OK);
    CHECK_ARRAY(shape, 2, 4);
    CHECK_ARRAY(strides, 12, 1);
    CHECK_INT(off, 13);
    CHECK_INT(lt_layout_select(shape, strides, &off, 3, s234, flip, 8, 1, 2), LT_OK); /* a negative stride */
    CHECK_INT(off, 0);
    CHECK_INT(lt_layout_select(shape, strides, &off, 3, s234, c234, 0, 2, 3), LT_OK); /* the last index */
    CHECK_ARRAY(shape, 2, 3);
    CHECK_INT(off, 3);
    int64_t s1[1] = {1}, u1[1] = {1};
    CHECK_INT(lt_layout_select(shape, strides, &off, 1, s1, u1, 9, 0, 0), LT_OK); /* to 0-d */
    CHECK_INT(off, 9);
    int64_t ip_shape[3] = {2, 3, 4}, ip_strides[3] = {12, 4, 1};
    CHECK_INT(lt_layout_select(ip_shape, ip_strides, &off, 3, ip_shape, ip_strides, 0, 0, 1), LT_OK);
    CHECK_ARRAY(ip_shape, 3, 4);
    CHECK_ARRAY(ip_strides, 4, 1);
    CHECK_INT(off, 12);
    /* an index outside the extent (a size-0 dim has none), a dim outside the dims */
    int64_t s03[2] = {0, 3}, c03[2] = {3, 1};
    CHECK_INT(lt_layout_select(shape, strides, &off, 3, s234, c234, 0, 1, 3), LT_ERANGE);
    CHECK_INT(lt_layout_select(shape, strides, &off, 3, s234, c234, 0, 1, -1), LT_ERANGE);
    CHECK_INT(lt_layout_select(shape, strides, &off, 2, s03, c03, 0, 0, 0), LT_ERANGE);
    CHECK_INT(lt_layout_select(shape, strides, &off, 3, s234, c234, 0, 3, 0), LT_EINVAL);
    CHECK_INT(lt_layout_select(shape, strides, &off, 0, NULL, NULL, 0, 0, 0), LT_EINVAL);
    /* int64 overflow of the offset: an empty view may carry such strides */
    int64_t s30[2] = {3, 0}, huge[2] = {INT64_C(1) << 62, 1};
    CHECK_INT(lt_layout_select(shape, strides, &off, 2, s30, huge, 0, 0, 1), LT_OK);
    CHECK_INT(off, INT64_C(1) << 62);
    CHECK_INT(lt_layout_select(shape, strides, &off, 2, s30, huge, 0, 0, 2), LT_EOVERFLOW);
    CHECK_INT(lt_layout_select(shape, strides, &off, 2, s30, huge, INT64_MAX - (INT64_C(1) << 62), 0, 1), LT_OK);
    CHECK_INT(off, INT64_MAX);

    /* narrow: the strides stay, element 0 moves start steps, also for length 0 */
    CHECK_INT(lt_layout_narrow(shape, &off, 3, s234, c234, 1, 2, 1, 2), LT_OK);
    CHECK_ARRAY(shape, 2, 3, 2);
    CHECK_INT(off, 2);
    CHECK_INT(lt_layout_narrow(shape, &off, 3, s234, flip, 8, 1, 3, 0), LT_OK); /* at the end, empty */
    CHECK_ARRAY(shape, 2, 0, 4);
    CHECK_INT(off, -4);
    CHECK_INT(lt_layout_narrow(shape, &off, 2, s03, c03, 0, 0, 0, 0), LT_OK);   /* a size-0 dim */
    CHECK_ARRAY(shape, 0, 3);
    CHECK_INT(lt_layout_narrow(shape, &off, 3, s234, c234, 0, 1, 2, 2), LT_ERANGE);
    CHECK_INT(lt_layout_narrow(shape, &off, 3, s234, c234, 0, 1, 4, 0), LT_ERANGE);
    CHECK_INT(lt_layout_narrow(shape, &off, 3, s234, c234, 0, 1, -1, 1), LT_ERANGE);
    CHECK_INT(lt_layout_narrow(shape, &off, 3, s234, c234, 0, 1, 1, -1), LT_ERANGE);
    CHECK_INT(lt_layout_narrow(shape, &off, 3, s234, c234, 0, 1, 1, INT64_MAX), LT_ERANGE); /* no wrap */
    CHECK_INT(lt_layout_narrow(shape, &off, 3, s234, c234, 0, 3, 0, 0), LT_EINVAL);
    CHECK_INT(lt_layout_narrow(shape, &off, 3, s234, NULL, 0, 1, 0, 0), LT_EINVAL);
    CHECK_INT(lt_layout_narrow(shape, &off, 2, s30, huge, 0, 0, 2, 1), LT_EOVERFLOW);
    CHECK_INT(lt_layout_narrow(shape, &off, 2, s30, huge, 0, 0, 1, 2), LT_OK);
    CHECK_INT(off, INT64_C(1) << 62);
    int64_t ip[2] = {3, 0};
    CHECK_INT(lt_layout_narrow(ip, &off, 2, ip, huge, 0, 0, 1, 1), LT_OK);
    CHECK_ARRAY(ip, 1, 0);
}

static void test_unfold(void)
{
    int64_t shape[4], strides[4];
    /* windows of 3 every 2 over 7 elements of stride 2 at the end of a 2-d view */
    int64_t s27[2] = {2, 7}, c27[2] = {14, 2};
    CHECK_INT(lt_layout_unfold(shape, strides, 2, s27, c27, 1, 3, 2), LT_OK);
    CHECK_ARRAY(shape, 2, 3, 3);
    CHECK_ARRAY(strides, 14, 4, 2);
    /* every window's elements, brute force: window w, element e of row r at r*14 + (w*2 + e)*2 */
    for (int64_t w = 0; w < shape[1]; w++)
        for (int64_t e = 0; e < shape[2]; e++)
            CHECK_INT(w * strides[1] + e * strides[2], (w * 2 + e) * 2);
    CHECK_INT(lt_layout_unfold(shape, strides, 2, s27, c27, 0, 2, 1), LT_OK); /* size == extent: one window */
    CHECK_ARRAY(shape, 1, 7, 2);
    CHECK_INT(lt_layout_unfold(shape, strides, 2, s27, c27, 1, 0, 1), LT_OK); /* size 0: extent + 1 windows */
    CHECK_ARRAY(shape, 2, 8, 0);
    int64_t s03[2] = {0, 3}, neg[2] = {3, -1};
    CHECK_INT(lt_layout_unfold(shape, strides, 2, s03, neg, 0, 0, 5), LT_OK);   /* a size-0 dim */
    CHECK_ARRAY(shape, 1, 3, 0);
    CHECK_INT(lt_layout_unfold(shape, strides, 2, s03, neg, 1, 2, 1), LT_OK);   /* a negative stride */
    CHECK_ARRAY(strides, 3, -1, -1);
    CHECK_INT(lt_layout_unfold(shape, strides, 0, NULL, NULL, 0, 1, 9), LT_OK); /* 0-d: one element */
    CHECK_ARRAY(shape, 1);
    CHECK_ARRAY(strides, 1);
    int64_t ip_shape[3] = {2, 7, -1}, ip_strides[3] = {14, 2, -1};
    CHECK_INT(lt_layout_unfold(ip_shape, ip_strides, 2, ip_shape, ip_strides, 1, 3, 2), LT_OK);
    CHECK_ARRAY(ip_shape, 2, 3, 3);
    CHECK_ARRAY(ip_strides, 14, 4, 2);
    /* int64 overflow of the windows' stride, exact at the edge */
    int64_t s10[1] = {10}, two[1] = {2}, one[1] = {1};
    CHECK_INT(lt_layout_unfold(shape, strides, 1, s10, two, 0, 2, INT64_C(1) << 62), LT_EOVERFLOW);
    CHECK_STR(lt_last_error(), "unfold(): step 4611686018427387904 times stride 2 of dimension 0 does not fit in "
                               "int64; use a smaller step");
    CHECK_INT(lt_layout_unfold(shape, strides, 1, s10, one, 0, 2, INT64_MAX), LT_OK);
    CHECK_ARRAY(shape, 1, 2);
    CHECK_ARRAY(strides, INT64_MAX, 1);
    /* refusals */
    CHECK_INT(lt_layout_unfold(shape, strides, 1, s10, one, 0, 11, 1), LT_EINVAL);
    CHECK_INT(lt_layout_unfold(shape, strides, 1, s10, one, 0, -1, 1), LT_EINVAL);
    CHECK_INT(lt_layout_unfold(shape, strides, 1, s10, one, 0, 2, 0), LT_EINVAL);
    CHECK_INT(lt_layout_unfold(shape, strides, 1, s10, one, 1, 2, 1), LT_EINVAL);
    CHECK_INT(lt_layout_unfold(shape, strides, 0, NULL, NULL, 0, 2, 1), LT_EINVAL);
    CHECK_INT(lt_layout_unfold(shape, strides, 0, NULL, NULL, 1, 1, 1), LT_EINVAL);
    CHECK_INT(lt_layout_unfold(shape, strides, LT_MAX_NDIM, s10, one, 0, 1, 1), LT_EINVAL);
}

static void test_split_chunk(void)
{
    int64_t count = -1, length = -1, last = -1;
    /* the pieces tile the extent: count - 1 of length, then last (1..length) */
    for (int64_t size = 0; size <= 12; size++)
        for (int64_t n = 1; n <= 14; n++) {
            CHECK_INT(lt_layout_split_lengths(&count, &length, &last, size, n), LT_OK);
            CHECK_INT(length, n);
            CHECK_INT((count - 1) * length + last, size);
            CHECK(size == 0 ? count == 1 && last == 0 : last >= 1 && last <= n);
            CHECK_INT(lt_layout_chunk_lengths(&count, &length, &last, size, n), LT_OK);
            CHECK(count <= n && (size == 0 ? count == n && length == 0 && last == 0
                                           : (count - 1) * length + last == size && last >= 1));
        }
    CHECK_INT(lt_layout_chunk_lengths(&count, &length, &last, 5, 4), LT_OK); /* 3 pieces: 2, 2, 1 */
    CHECK_INT(count, 3);
    CHECK_INT(length, 2);
    CHECK_INT(last, 1);
    CHECK_INT(lt_layout_split_lengths(&count, &length, &last, 0, 0), LT_OK); /* split(0) of an empty dim */
    CHECK_INT(count, 1);
    CHECK_INT(last, 0);
    /* the ceiling without size + split_size - 1: no overflow at the end of int64 */
    CHECK_INT(lt_layout_split_lengths(&count, &length, &last, INT64_MAX, INT64_MAX - 1), LT_OK);
    CHECK_INT(count, 2);
    CHECK_INT(last, 1);
    CHECK_INT(lt_layout_split_lengths(&count, &length, &last, INT64_MAX, INT64_MAX), LT_OK);
    CHECK_INT(count, 1);
    CHECK_INT(last, INT64_MAX);
    CHECK_INT(lt_layout_chunk_lengths(&count, &length, &last, INT64_MAX, 2), LT_OK);
    CHECK_INT(count, 2);
    CHECK_INT(length, INT64_C(1) << 62);
    CHECK_INT(last, (INT64_C(1) << 62) - 1);
    CHECK_INT(lt_layout_split_lengths(&count, &length, &last, 3, 0), LT_EINVAL);
    CHECK_INT(lt_layout_split_lengths(&count, &length, &last, 3, -1), LT_EINVAL);
    CHECK_INT(lt_layout_split_lengths(&count, &length, &last, -1, 1), LT_EINVAL);
    CHECK_INT(lt_layout_chunk_lengths(&count, &length, &last, 3, 0), LT_EINVAL);
    CHECK_INT(lt_layout_chunk_lengths(&count, &length, &last, -1, 2), LT_EINVAL);
}

int main(void)
{
    test_diagonal();
    test_select_narrow();
    test_unfold();
    test_split_chunk();
    test_byte_extent();
    test_contiguous();
    test_infer_shape();
    test_view_strides();
    test_broadcast();
    test_merge_dims();
    test_result_order();
    test_unsqueeze_and_dense_order();

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
    /* torch's numel rule: prefix products in uint64, the result in int64, a 0 excusing neither */
    int64_t three_max[3] = {INT64_MAX, 2, 0}, big_zero[3] = {INT64_C(1) << 62, INT64_C(1) << 62, 0};
    int64_t three_62[3] = {3, INT64_C(1) << 62, 0}, u64_edge[2] = {INT64_C(1) << 62, 4};
    CHECK_INT(lt_layout_numel(&n, 3, three_max), LT_OK);            /* 2^64 - 2 fits uint64, then 0 */
    CHECK_INT(n, 0);
    CHECK_INT(lt_layout_numel(&n, 3, three_62), LT_OK);
    CHECK_INT(n, 0);
    CHECK_INT(lt_layout_numel(&n, 3, big_zero), LT_EOVERFLOW);      /* 2^124 before the 0 */
    CHECK_STR(lt_last_error(), "the product of the shape overflows int64 at dimension 1");
    CHECK_INT(lt_layout_numel(&n, 2, u64_edge), LT_EOVERFLOW);      /* 2^64: past uint64 too */
    int64_t past_int64[2] = {INT64_C(1) << 62, 3};
    CHECK_INT(lt_layout_numel(&n, 2, past_int64), LT_EOVERFLOW);    /* 3 * 2^62 fits uint64, not int64 */
    CHECK_STR(lt_last_error(), "the product of the shape, 13835058055282163712, overflows int64");
    /* nbytes: the numel rule, then numel * itemsize within int64 */
    int64_t nb = -1, s_half[1] = {INT64_C(1) << 61};
    CHECK_INT(lt_layout_nbytes(&nb, 2, s23, 4), LT_OK);
    CHECK_INT(nb, 24);
    CHECK_INT(lt_layout_nbytes(&nb, 3, three_62, 8), LT_OK);
    CHECK_INT(nb, 0);
    CHECK_INT(lt_layout_nbytes(&nb, 0, NULL, 8), LT_OK);
    CHECK_INT(nb, 8);
    CHECK_INT(lt_layout_nbytes(&nb, 1, s_half, 3), LT_OK);          /* 3 * 2^61 < 2^63 */
    CHECK_INT(lt_layout_nbytes(&nb, 1, s_half, 4), LT_EOVERFLOW);   /* 2^63 bytes */
    CHECK_STR(lt_last_error(), "Storage size calculation overflowed with sizes=[2305843009213693952]: "
                               "2305843009213693952 elements of 4 bytes exceed int64 bytes");
    CHECK_INT(lt_layout_nbytes(&nb, 3, big_zero, 1), LT_EOVERFLOW);
    CHECK_STR(lt_last_error(), "Storage size calculation overflowed with sizes=[4611686018427387904, "
                               "4611686018427387904, 0]: the product of the sizes leaves int64");
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

    /* internal overlap: a stride 0 over more than one element, unless there are no elements */
    int64_t s32[2] = {3, 2}, z1[2] = {0, 1}, zz[2] = {0, 0}, s30[2] = {3, 0}, s31[2] = {3, 1}, b10[2] = {1, 0};
    CHECK_INT(lt_layout_has_internal_overlap(2, s32, z1), 1);
    CHECK_INT(lt_layout_has_internal_overlap(2, s32, c23), 0);
    CHECK_INT(lt_layout_has_internal_overlap(2, s03, zz), 0);        /* NumPy's np.empty((0, 3)) with strides 0 */
    CHECK_INT(lt_layout_has_internal_overlap(2, s30, zz), 0);
    CHECK_INT(lt_layout_has_internal_overlap(2, s03, b10), 0);       /* (0, 1) broadcast to (0, 3) */
    CHECK_INT(lt_layout_has_internal_overlap(2, s31, zz), 1);
    CHECK_INT(lt_layout_has_internal_overlap(2, s13, zz), 1);        /* extent 3 along stride 0 */
    int64_t s11[2] = {1, 1};
    CHECK_INT(lt_layout_has_internal_overlap(2, s11, zz), 0);        /* one element */
    CHECK_INT(lt_layout_has_internal_overlap(0, NULL, NULL), 0);
    MT_DONE();
}
