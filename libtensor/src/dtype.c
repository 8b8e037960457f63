/* dtype.c: the dtype table (size, name, DLPack code) and lookups. */
#include "internal.h"

typedef struct {
    const char *name;
    uint8_t itemsize;
    uint8_t dl_code;
} dtype_row;

/* Indexed by lt_dtype; DLPack bits are itemsize * 8 for every row. */
static const dtype_row table[LT_DTYPE_COUNT] = {
    [LT_BOOL] = {"bool", 1, kDLBool},
    [LT_UINT8] = {"uint8", 1, kDLUInt},
    [LT_UINT16] = {"uint16", 2, kDLUInt},
    [LT_UINT32] = {"uint32", 4, kDLUInt},
    [LT_UINT64] = {"uint64", 8, kDLUInt},
    [LT_INT8] = {"int8", 1, kDLInt},
    [LT_INT16] = {"int16", 2, kDLInt},
    [LT_INT32] = {"int32", 4, kDLInt},
    [LT_INT64] = {"int64", 8, kDLInt},
    [LT_FLOAT16] = {"float16", 2, kDLFloat},
    [LT_BFLOAT16] = {"bfloat16", 2, kDLBfloat},
    [LT_FLOAT32] = {"float32", 4, kDLFloat},
    [LT_FLOAT64] = {"float64", 8, kDLFloat},
    [LT_COMPLEX64] = {"complex64", 8, kDLComplex},
    [LT_COMPLEX128] = {"complex128", 16, kDLComplex},
};

static int valid(lt_dtype dtype) { return (unsigned)dtype < LT_DTYPE_COUNT; }

size_t lt_dtype_itemsize(lt_dtype dtype) { return valid(dtype) ? table[dtype].itemsize : 0; }

const char *lt_dtype_name(lt_dtype dtype) { return valid(dtype) ? table[dtype].name : "invalid"; }

lt_status lt_dtype_from_dlpack(lt_dtype *out, uint8_t code, uint8_t bits, uint16_t lanes)
{
    if (lanes != 1)
        return lt__fail(LT_EDTYPE, "DLPack dtype has %u lanes; only 1 lane is supported", lanes);
    for (int i = 0; i < LT_DTYPE_COUNT; i++) {
        if (table[i].dl_code == code && table[i].itemsize * 8 == bits) {
            *out = (lt_dtype)i;
            return LT_OK;
        }
    }
    return lt__fail(LT_EDTYPE, "DLPack dtype (code %u, bits %u) has no libtensor dtype", code, bits);
}

lt_status lt_dtype_to_dlpack(DLDataType *out, lt_dtype dtype)
{
    if (!valid(dtype))
        return lt__fail(LT_EDTYPE, "dtype value %d is not a libtensor dtype", (int)dtype);
    out->code = table[dtype].dl_code;
    out->bits = (uint8_t)(table[dtype].itemsize * 8);
    out->lanes = 1;
    return LT_OK;
}
