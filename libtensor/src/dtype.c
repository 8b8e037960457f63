/* dtype.c: the dtype table (size, name, DLPack code) and lookups. */
#include "internal.h"

typedef struct {
    const char *name;
    uint8_t itemsize;
    uint8_t dl_code;
    uint8_t dl_lanes; /* DLPack bits per lane = itemsize * 8 / dl_lanes */
} dtype_row;

/* Indexed by lt_dtype. Every dtype is one lane of itemsize * 8 bits, but
 * float4_e2m1fn_x2, which DLPack (and torch) describe as 2 lanes of 4 bits. */
static const dtype_row table[LT_DTYPE_COUNT] = {
    [LT_BOOL] = {"bool", 1, kDLBool, 1},
    [LT_UINT8] = {"uint8", 1, kDLUInt, 1},
    [LT_UINT16] = {"uint16", 2, kDLUInt, 1},
    [LT_UINT32] = {"uint32", 4, kDLUInt, 1},
    [LT_UINT64] = {"uint64", 8, kDLUInt, 1},
    [LT_INT8] = {"int8", 1, kDLInt, 1},
    [LT_INT16] = {"int16", 2, kDLInt, 1},
    [LT_INT32] = {"int32", 4, kDLInt, 1},
    [LT_INT64] = {"int64", 8, kDLInt, 1},
    [LT_FLOAT16] = {"float16", 2, kDLFloat, 1},
    [LT_BFLOAT16] = {"bfloat16", 2, kDLBfloat, 1},
    [LT_FLOAT32] = {"float32", 4, kDLFloat, 1},
    [LT_FLOAT64] = {"float64", 8, kDLFloat, 1},
    [LT_COMPLEX64] = {"complex64", 8, kDLComplex, 1},
    [LT_COMPLEX128] = {"complex128", 16, kDLComplex, 1},
    [LT_FLOAT8_E4M3FN] = {"float8_e4m3fn", 1, kDLFloat8_e4m3fn, 1},
    [LT_FLOAT8_E4M3FNUZ] = {"float8_e4m3fnuz", 1, kDLFloat8_e4m3fnuz, 1},
    [LT_FLOAT8_E5M2] = {"float8_e5m2", 1, kDLFloat8_e5m2, 1},
    [LT_FLOAT8_E5M2FNUZ] = {"float8_e5m2fnuz", 1, kDLFloat8_e5m2fnuz, 1},
    [LT_FLOAT8_E8M0FNU] = {"float8_e8m0fnu", 1, kDLFloat8_e8m0fnu, 1},
    [LT_FLOAT4_E2M1FN_X2] = {"float4_e2m1fn_x2", 1, kDLFloat4_e2m1fn, 2},
};

static int valid(lt_dtype dtype) { return (unsigned)dtype < LT_DTYPE_COUNT; }

size_t lt_dtype_itemsize(lt_dtype dtype) { return valid(dtype) ? table[dtype].itemsize : 0; }

const char *lt_dtype_name(lt_dtype dtype) { return valid(dtype) ? table[dtype].name : "invalid"; }

lt_status lt_dtype_from_dlpack(lt_dtype *out, uint8_t code, uint8_t bits, uint16_t lanes)
{
    for (int i = 0; i < LT_DTYPE_COUNT; i++) {
        if (table[i].dl_code == code && table[i].dl_lanes == lanes && table[i].itemsize * 8 == bits * lanes) {
            *out = (lt_dtype)i;
            return LT_OK;
        }
    }
    return lt__fail(LT_EDTYPE, "DLPack dtype (code %u, bits %u, lanes %u) has no libtensor dtype", code, bits,
                    lanes);
}

lt_status lt_dtype_to_dlpack(DLDataType *out, lt_dtype dtype)
{
    if (!valid(dtype))
        return lt__fail(LT_EDTYPE, "dtype value %d is not a libtensor dtype", (int)dtype);
    out->code = table[dtype].dl_code;
    out->bits = (uint8_t)(table[dtype].itemsize * 8 / table[dtype].dl_lanes);
    out->lanes = table[dtype].dl_lanes;
    return LT_OK;
}
