/* test_header.c: libtensor.h compiles on its own (it is built with -Wall
 * -Wextra -Werror by tests/meson.build) and the DLPack structs have the
 * published LP64 layout, field by field. tests/meson.build adds a strict
 * warning set (-Wpedantic, -Wconversion, ...) for this file alone. */
#include <stddef.h>

#include "libtensor.h"
#include "minitest.h"

int main(void)
{
    CHECK_INT(sizeof(DLPackVersion), 8);
    CHECK_INT(sizeof(DLDevice), 8);
    CHECK_INT(sizeof(DLDataType), 4);
    CHECK_INT(sizeof(DLTensor), 48);
    CHECK_INT(offsetof(DLTensor, device), 8);
    CHECK_INT(offsetof(DLTensor, ndim), 16);
    CHECK_INT(offsetof(DLTensor, dtype), 20);
    CHECK_INT(offsetof(DLTensor, shape), 24);
    CHECK_INT(offsetof(DLTensor, strides), 32);
    CHECK_INT(offsetof(DLTensor, byte_offset), 40);
    CHECK_INT(sizeof(DLManagedTensor), 64);
    CHECK_INT(offsetof(DLManagedTensor, manager_ctx), 48);
    CHECK_INT(offsetof(DLManagedTensor, deleter), 56);
    CHECK_INT(sizeof(DLManagedTensorVersioned), 80);
    CHECK_INT(offsetof(DLManagedTensorVersioned, manager_ctx), 8);
    CHECK_INT(offsetof(DLManagedTensorVersioned, deleter), 16);
    CHECK_INT(offsetof(DLManagedTensorVersioned, flags), 24);
    CHECK_INT(offsetof(DLManagedTensorVersioned, dl_tensor), 32);
    CHECK_INT(DLPACK_FLAG_BITMASK_READ_ONLY, 1);
    CHECK_INT(DLPACK_FLAG_BITMASK_IS_COPIED, 2);
    CHECK_INT(kDLCPU, 1);
    CHECK_INT(kDLCUDA, 2);
    CHECK_INT(kDLBool, 6);
    MT_DONE();
}
