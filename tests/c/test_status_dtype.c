/* test_status_dtype.c: status names and messages come from one list; the
 * detail message is per thread; the dtype table maps to DLPack both ways. */
#include <pthread.h>

#include "libtensor.h"
#include "minitest.h"

static void *other_thread(void *arg)
{
    (void)arg;
    /* A failure here must not change the main thread's message. */
    int64_t out;
    int64_t bad[1] = {-5};
    lt_layout_numel(&out, 1, bad);
    return NULL;
}

int main(void)
{
    CHECK_STR(lt_status_name(LT_OK), "LT_OK");
    CHECK_STR(lt_status_name(LT_EREADONLY), "LT_EREADONLY");
    CHECK_STR(lt_status_name((lt_status)-999), "LT_UNKNOWN");
    CHECK_STR(lt_strerror(LT_ENOMEM), "out of memory");
    CHECK_STR(lt_strerror((lt_status)42), "unknown status");

    int64_t shape[2] = {3, -1}, n = 0;
    CHECK_INT(lt_layout_numel(&n, 2, shape), LT_EINVAL);
    CHECK_STR(lt_last_error(), "shape[1] is -1; extents must be >= 0");
    pthread_t th;
    pthread_create(&th, NULL, other_thread, NULL);
    pthread_join(th, NULL);
    CHECK_STR(lt_last_error(), "shape[1] is -1; extents must be >= 0");

    size_t sizes[LT_DTYPE_COUNT] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16, 1, 1, 1, 1, 1, 1};
    for (int d = 0; d < LT_DTYPE_COUNT; d++) {
        CHECK_INT(lt_dtype_itemsize((lt_dtype)d), sizes[d]);
        DLDataType dl;
        CHECK_INT(lt_dtype_to_dlpack(&dl, (lt_dtype)d), LT_OK);
        int lanes = d == LT_FLOAT4_E2M1FN_X2 ? 2 : 1; /* two 4-bit floats per byte, as torch exports it */
        CHECK_INT(dl.bits * lanes, sizes[d] * 8);
        CHECK_INT(dl.lanes, lanes);
        lt_dtype back = LT_DTYPE_COUNT;
        CHECK_INT(lt_dtype_from_dlpack(&back, dl.code, dl.bits, dl.lanes), LT_OK);
        CHECK_INT(back, d);
    }
    CHECK_STR(lt_dtype_name(LT_BFLOAT16), "bfloat16");
    CHECK_STR(lt_dtype_name((lt_dtype)99), "invalid");
    CHECK_INT(lt_dtype_itemsize((lt_dtype)-1), 0);
    lt_dtype out = LT_BOOL;
    CHECK_INT(lt_dtype_from_dlpack(&out, kDLFloat, 32, 4), LT_EDTYPE);
    CHECK_INT(lt_dtype_from_dlpack(&out, kDLUInt, 1, 1), LT_EDTYPE);   /* 1-bit bool is refused */
    CHECK_INT(lt_dtype_from_dlpack(&out, kDLOpaqueHandle, 64, 1), LT_EDTYPE);
    CHECK_INT(lt_dtype_from_dlpack(&out, kDLBool, 8, 1), LT_OK);
    CHECK_INT(out, LT_BOOL);
    CHECK_INT(lt_dtype_from_dlpack(&out, kDLUInt, 8, 1), LT_OK);       /* never bool */
    CHECK_INT(out, LT_UINT8);
    CHECK_INT(lt_dtype_from_dlpack(&out, kDLFloat8_e4m3fn, 8, 1), LT_OK);
    CHECK_INT(out, LT_FLOAT8_E4M3FN);
    CHECK_INT(lt_dtype_from_dlpack(&out, kDLFloat4_e2m1fn, 4, 2), LT_OK);
    CHECK_INT(out, LT_FLOAT4_E2M1FN_X2);
    CHECK_INT(lt_dtype_from_dlpack(&out, kDLFloat4_e2m1fn, 4, 1), LT_EDTYPE);  /* unpacked float4: no dtype */
    CHECK_INT(lt_dtype_from_dlpack(&out, kDLFloat8_e3m4, 8, 1), LT_EDTYPE);
    CHECK_INT(lt_dtype_from_dlpack(&out, kDLFloat6_e2m3fn, 6, 1), LT_EDTYPE);
    DLDataType dl;
    CHECK_INT(lt_dtype_to_dlpack(&dl, LT_DTYPE_COUNT), LT_EDTYPE);
    MT_DONE();
}
