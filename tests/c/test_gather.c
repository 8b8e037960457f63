/* test_gather.c: gather.c's kernels. Mask counts and positions over strided
 * masks (runs of eight false bytes skipped, nonzero bytes other than 1),
 * the mask gather and scatter, index offsets with negative indices and the
 * out-of-range refusal (its message and that out is left unused), gather and
 * scatter walks with broadcast indices, accumulate for each dtype family,
 * where, and guard bytes around strided destinations. */
#include <stdint.h>
#include <string.h>

#include "libtensor.h"
#include "minitest.h"

static void test_mask_count_and_positions(void)
{
    /* 20 bytes: runs longer than eight false bytes, and a byte of 7 counts as true */
    uint8_t m[20] = {0};
    m[0] = 1, m[9] = 7, m[17] = 1, m[19] = 1;
    int64_t shape[1] = {20}, unit[1] = {1}, count = -1;
    CHECK_INT(lt_mask_count(&count, m, unit, 1, shape), LT_OK);
    CHECK_INT(count, 4);
    int64_t pos[4], w[1] = {3}; /* weight 3: offsets in a view of stride 3 */
    CHECK_INT(lt_mask_positions(pos, 1, 1, 4, 1, w, m, unit, 1, shape), LT_OK);
    CHECK_INT(pos[0], 0);
    CHECK_INT(pos[1], 27);
    CHECK_INT(pos[2], 51);
    CHECK_INT(pos[3], 57);
    /* a count that is wrong is refused before out is overrun */
    CHECK_INT(lt_mask_positions(pos, 1, 1, 3, 1, w, m, unit, 1, shape), LT_EINVAL);
    CHECK_INT(lt_mask_positions(pos, 1, 1, 5, 1, w, m, unit, 1, shape), LT_EINVAL);

    /* 2-D transposed mask: nonzero coordinates, identity weights */
    uint8_t m2[6] = {0, 1, 0, 0, 1, 1}; /* row-major (2, 3); read as its transpose (3, 2) */
    int64_t shape2[2] = {3, 2}, st2[2] = {1, 3}, eye[4] = {1, 0, 0, 1}, coords[6];
    CHECK_INT(lt_mask_count(&count, m2, st2, 2, shape2), LT_OK);
    CHECK_INT(count, 3);
    CHECK_INT(lt_mask_positions(coords, 2, 1, 3, 2, eye, m2, st2, 2, shape2), LT_OK);
    /* transposed: element (i, j) is m2[j * 3 + i]: (1, 0), (1, 1), (2, 1) */
    CHECK_INT(coords[0], 1);
    CHECK_INT(coords[1], 0);
    CHECK_INT(coords[2], 1);
    CHECK_INT(coords[3], 1);
    CHECK_INT(coords[4], 2);
    CHECK_INT(coords[5], 1);
    /* column-major output, as torch's nonzero() lays it out */
    CHECK_INT(lt_mask_positions(coords, 1, 3, 3, 2, eye, m2, st2, 2, shape2), LT_OK);
    CHECK_INT(coords[0], 1);
    CHECK_INT(coords[1], 1);
    CHECK_INT(coords[2], 2);
    CHECK_INT(coords[3], 0);
    CHECK_INT(coords[5], 1);
    /* 0-d mask */
    uint8_t one = 1;
    CHECK_INT(lt_mask_count(&count, &one, NULL, 0, NULL), LT_OK);
    CHECK_INT(count, 1);
}

static void test_mask_gather_scatter(void)
{
    float src[12], out[4] = {0};
    for (int i = 0; i < 12; i++)
        src[i] = (float)i;
    uint8_t m[6] = {1, 0, 0, 1, 1, 0};
    int64_t shape[2] = {2, 3}, sst[2] = {6, 2}, mst[2] = {3, 1}; /* src = every other float */
    CHECK_INT(lt_mask_gather(out, src, sst, LT_FLOAT32, m, mst, 2, shape, 3), LT_OK);
    CHECK_DBL(out[0], 0.0);
    CHECK_DBL(out[1], 6.0);
    CHECK_DBL(out[2], 8.0);
    CHECK_DBL(out[3], 0.0); /* untouched past count */
    CHECK_INT(lt_mask_gather(out, src, sst, LT_FLOAT32, m, mst, 2, shape, 2), LT_EINVAL);

    float vals[3] = {-1, -2, -3}, fill = 5;
    CHECK_INT(lt_mask_scatter(src, sst, vals, 1, LT_FLOAT32, m, mst, 2, shape, 3), LT_OK);
    CHECK_DBL(src[0], -1.0);
    CHECK_DBL(src[1], 1.0); /* between the strided elements: untouched */
    CHECK_DBL(src[6], -2.0);
    CHECK_DBL(src[8], -3.0);
    CHECK_DBL(src[2], 2.0);
    CHECK_INT(lt_mask_scatter(src, sst, &fill, 0, LT_FLOAT32, m, mst, 2, shape, 3), LT_OK);
    CHECK_DBL(src[0], 5.0);
    CHECK_DBL(src[8], 5.0);
    CHECK_DBL(src[4], 4.0);
}

static void test_dense_mask_rows(void)
{
    /* 19 dense elements: two 8-byte mask words (one all false) and a tail of 3 */
    double v[19], packed[4] = {-1, -2, -3, -4}, back[4] = {0};
    uint8_t m[19] = {0};
    m[1] = 1, m[7] = 2, m[17] = 1, m[18] = 1;
    for (int i = 0; i < 19; i++)
        v[i] = i;
    int64_t shape[1] = {19}, unit[1] = {1};
    CHECK_INT(lt_mask_gather(back, v, unit, LT_FLOAT64, m, unit, 1, shape, 4), LT_OK);
    CHECK_DBL(back[0], 1.0);
    CHECK_DBL(back[1], 7.0);
    CHECK_DBL(back[2], 17.0);
    CHECK_DBL(back[3], 18.0);
    CHECK_INT(lt_mask_scatter(v, unit, packed, 1, LT_FLOAT64, m, unit, 1, shape, 4), LT_OK);
    CHECK_DBL(v[0], 0.0);
    CHECK_DBL(v[1], -1.0);
    CHECK_DBL(v[2], 2.0);
    CHECK_DBL(v[7], -2.0);
    CHECK_DBL(v[16], 16.0);
    CHECK_DBL(v[17], -3.0);
    CHECK_DBL(v[18], -4.0);
    /* a count below the mask's is refused, and nothing past the packed operand is read */
    CHECK_INT(lt_mask_scatter(v, unit, packed, 1, LT_FLOAT64, m, unit, 1, shape, 1), LT_EINVAL);
    CHECK_INT(lt_mask_gather(back, v, unit, LT_FLOAT64, m, unit, 1, shape, 3), LT_EINVAL);
}

static void test_index_offsets(void)
{
    int64_t i0[3] = {0, -1, 2}, i1[1] = {1};
    const int64_t *idx[2] = {i0, i1};
    int64_t shape[1] = {3}, istr[2] = {1, 0}; /* i1 broadcast along the one dimension */
    int64_t sizes[2] = {3, 4}, strides[2] = {4, 1}, ids[2] = {0, 1}, out[3] = {-9, -9, -9};
    CHECK_INT(lt_index_offsets(out, 2, idx, istr, sizes, strides, ids, 1, 1, shape), LT_OK);
    CHECK_INT(out[0], 1);
    CHECK_INT(out[1], 9);
    CHECK_INT(out[2], 9);
    i0[2] = 3;
    CHECK_INT(lt_index_offsets(out, 2, idx, istr, sizes, strides, ids, 1, 1, shape), LT_ERANGE);
    CHECK_STR(lt_last_error(), "index 3 is out of bounds for dimension 0 with size 3");
    i0[2] = -4;
    CHECK_INT(lt_index_offsets(out, 2, idx, istr, sizes, strides, ids, 1, 1, shape), LT_ERANGE);
    CHECK_STR(lt_last_error(), "index -4 is out of bounds for dimension 0 with size 3");
    i0[2] = -1; /* refused where negative indices do not wrap (gather, index_select) */
    CHECK_INT(lt_index_offsets(out, 2, idx, istr, sizes, strides, ids, 0, 1, shape), LT_ERANGE);
    CHECK_STR(lt_last_error(), "index -1 is out of bounds for dimension 0 with size 3");
    i0[2] = INT64_MIN; /* no overflow in the wrap */
    CHECK_INT(lt_index_offsets(out, 2, idx, istr, sizes, strides, ids, 1, 1, shape), LT_ERANGE);
    CHECK_INT(lt_index_offsets(out, 0, idx, istr, sizes, strides, ids, 1, 1, shape), LT_EINVAL);
    /* an empty index checks nothing and writes nothing */
    int64_t empty[1] = {0};
    CHECK_INT(lt_index_offsets(NULL, 2, idx, istr, sizes, strides, ids, 1, 1, empty), LT_OK);
}

static void test_gather_scatter_walks(void)
{
    /* x is 3 x 4 int32, x[:, [3, 0]] -> 3 x 2: the innermost loop is the gather */
    int32_t x[12], out[6 + 2];
    for (int i = 0; i < 12; i++)
        x[i] = i * 10;
    int64_t offs[2] = {3, 0};
    int64_t shape[2] = {3, 2}, dst[2] = {2, 1}, src[2] = {4, 0}, ost[2] = {0, 1};
    memset(out, 0x7f, sizeof out);
    CHECK_INT(lt_index_gather(out, dst, x, src, offs, ost, LT_INT32, 2, shape), LT_OK);
    CHECK_INT(out[0], 30);
    CHECK_INT(out[1], 0);
    CHECK_INT(out[4], 110);
    CHECK_INT(out[5], 80);
    CHECK_INT(out[6], 0x7f7f7f7f); /* guard */
    /* x[[2, 0]] -> 2 x 4: the innermost loop is a contiguous row */
    int64_t roffs[2] = {8, 0}, rshape[2] = {2, 4}, rdst[2] = {4, 1}, rsrc[2] = {0, 1}, rost[2] = {1, 0};
    int32_t rows[8];
    CHECK_INT(lt_index_gather(rows, rdst, x, rsrc, roffs, rost, LT_INT32, 2, rshape), LT_OK);
    CHECK_INT(rows[0], 80);
    CHECK_INT(rows[3], 110);
    CHECK_INT(rows[4], 0);
    /* scatter with a repeated index keeps the last write; accumulate adds both */
    int64_t rep[3] = {1, 1, 2}, s1[1] = {3}, zero[1] = {0}, unit[1] = {1};
    int32_t vals[3] = {5, 6, 7};
    CHECK_INT(lt_index_scatter(x, zero, rep, unit, vals, unit, LT_INT32, 0, 1, s1), LT_OK);
    CHECK_INT(x[1], 6);
    CHECK_INT(x[2], 7);
    CHECK_INT(lt_index_scatter(x, zero, rep, unit, vals, unit, LT_INT32, 1, 1, s1), LT_OK);
    CHECK_INT(x[1], 17);
    CHECK_INT(x[2], 14);
    CHECK_INT(x[3], 30);
}

static void test_take(void)
{
    /* x is 3 x 4 int16; x[:, [-1, 0]] gathers in the innermost loop, x[[2, 0]] copies rows */
    int16_t x[12], out[8];
    for (int i = 0; i < 12; i++)
        x[i] = (int16_t)(i * 3);
    int64_t cols[2] = {-1, 0}, shape[2] = {3, 2}, dst[2] = {2, 1}, src[2] = {4, 0}, ist[2] = {0, 1};
    CHECK_INT(lt_index_take(out, dst, x, src, cols, ist, 4, 1, 1, 1, LT_INT16, 2, shape), LT_OK);
    CHECK_INT(out[0], 9);
    CHECK_INT(out[1], 0);
    CHECK_INT(out[5], 24);
    int64_t rows[2] = {2, 0}, rshape[2] = {2, 4}, rdst[2] = {4, 1}, rsrc[2] = {0, 1}, rist[2] = {1, 0};
    CHECK_INT(lt_index_take(out, rdst, x, rsrc, rows, rist, 3, 4, 0, 1, LT_INT16, 2, rshape), LT_OK);
    CHECK_INT(out[0], 24);
    CHECK_INT(out[7], 9);
    rows[1] = 3;
    CHECK_INT(lt_index_take(out, rdst, x, rsrc, rows, rist, 3, 4, 0, 1, LT_INT16, 2, rshape), LT_ERANGE);
    CHECK_STR(lt_last_error(), "index 3 is out of bounds for dimension 0 with size 3");
    cols[0] = -1; /* refused without wrapping */
    CHECK_INT(lt_index_take(out, dst, x, src, cols, ist, 4, 1, 1, 0, LT_INT16, 2, shape), LT_ERANGE);
    CHECK_STR(lt_last_error(), "index -1 is out of bounds for dimension 1 with size 4");
    cols[0] = INT64_MIN;
    CHECK_INT(lt_index_take(out, dst, x, src, cols, ist, 4, 1, 1, 1, LT_INT16, 2, shape), LT_ERANGE);
}

static void test_accumulate_dtypes(void)
{
    int64_t rep[2] = {0, 0}, s2[1] = {2}, zero[1] = {0}, unit[1] = {1};
    int8_t i8[1] = {120}, v8[2] = {5, 5};
    CHECK_INT(lt_index_scatter(i8, zero, rep, unit, v8, unit, LT_INT8, 1, 1, s2), LT_OK);
    CHECK_INT(i8[0], -126); /* 130 wraps */
    uint8_t b[1] = {0}, vb[2] = {1, 0};
    CHECK_INT(lt_index_scatter(b, zero, rep, unit, vb, unit, LT_BOOL, 1, 1, s2), LT_OK);
    CHECK_INT(b[0], 1);
    double c[2] = {1, 2}, vc[4] = {10, 20, 30, 40}; /* complex128: one element of two doubles */
    CHECK_INT(lt_index_scatter(c, zero, rep, unit, vc, unit, LT_COMPLEX128, 1, 1, s2), LT_OK);
    CHECK_DBL(c[0], 41.0);
    CHECK_DBL(c[1], 62.0);
    uint16_t h[1] = {0x3c00}, vh[2] = {0x3c00, 0x3c00}; /* float16 1 + 1 + 1 */
    CHECK_INT(lt_index_scatter(h, zero, rep, unit, vh, unit, LT_FLOAT16, 1, 1, s2), LT_OK);
    CHECK_INT(h[0], 0x4200);
    uint8_t f8[1] = {0}, vf8[2] = {0, 0};
    CHECK_INT(lt_index_scatter(f8, zero, rep, unit, vf8, unit, LT_FLOAT8_E4M3FN, 1, 1, s2), LT_EDTYPE);
}

static void test_where(void)
{
    uint8_t cond[3] = {1, 0, 1};
    float a[3] = {1, 2, 3}, b = -1, out[3];
    int64_t shape[1] = {3}, unit[1] = {1}, zero[1] = {0};
    CHECK_INT(lt_where(out, unit, cond, unit, a, unit, &b, zero, LT_FLOAT32, 1, shape), LT_OK);
    CHECK_DBL(out[0], 1.0);
    CHECK_DBL(out[1], -1.0);
    CHECK_DBL(out[2], 3.0);
    CHECK_INT(lt_where(out, unit, cond, unit, a, unit, &b, zero, (lt_dtype)99, 1, shape), LT_EDTYPE);
}

int main(void)
{
    test_mask_count_and_positions();
    test_mask_gather_scatter();
    test_dense_mask_rows();
    test_index_offsets();
    test_gather_scatter_walks();
    test_take();
    test_accumulate_dtypes();
    test_where();
    MT_DONE();
}
