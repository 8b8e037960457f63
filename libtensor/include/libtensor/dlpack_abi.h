/*
 * dlpack_abi.h: libtensor's own declaration of the DLPack ABI, v1.3.
 *
 * DLPack is a binary interface, so the struct layouts, field names and enum
 * values below are the specification's facts (https://dmlc.github.io/dlpack);
 * the declarations are written here rather than vendored so that libtensor
 * has no third-party header. Checked by tests/c/test_header.c with offsetof
 * against the published layout (LP64).
 */
#ifndef LIBTENSOR_DLPACK_ABI_H
#define LIBTENSOR_DLPACK_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 3

/* A major bump changes the layout of DLManagedTensorVersioned after its
 * first three fields; a minor bump only adds enum values. */
typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

typedef enum {
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13,
    kDLOneAPI = 14,
    kDLWebGPU = 15,
    kDLHexagon = 16,
    kDLMAIA = 17,
    kDLTrn = 18
} DLDeviceType;

typedef struct {
    int32_t device_type; /* a DLDeviceType value; int32_t keeps the 4-byte ABI explicit */
    int32_t device_id;
} DLDevice;

typedef enum {
    kDLInt = 0,
    kDLUInt = 1,
    kDLFloat = 2,
    kDLOpaqueHandle = 3,
    kDLBfloat = 4,
    kDLComplex = 5,
    kDLBool = 6,
    /* DLPack 1.1: low-precision floats (bits 8; float6 6, float4 4) */
    kDLFloat8_e3m4 = 7,
    kDLFloat8_e4m3 = 8,
    kDLFloat8_e4m3b11fnuz = 9,
    kDLFloat8_e4m3fn = 10,
    kDLFloat8_e4m3fnuz = 11,
    kDLFloat8_e5m2 = 12,
    kDLFloat8_e5m2fnuz = 13,
    kDLFloat8_e8m0fnu = 14,
    kDLFloat6_e2m3fn = 15,
    kDLFloat6_e3m2fn = 16,
    kDLFloat4_e2m1fn = 17
} DLDataTypeCode;

typedef struct {
    uint8_t code;   /* a DLDataTypeCode value */
    uint8_t bits;   /* bits per lane; complex counts both parts */
    uint16_t lanes; /* 1 for scalars */
} DLDataType;

typedef struct {
    void *data;           /* for CPU: a host pointer; elsewhere: opaque to the host */
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;       /* ndim entries */
    int64_t *strides;     /* ndim entries, in elements; required when ndim != 0 since v1.2 */
    uint64_t byte_offset; /* added to data before element 0 */
} DLTensor;

/* Legacy (pre-1.0) managed tensor, exchanged in capsules named "dltensor". */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

#define DLPACK_FLAG_BITMASK_READ_ONLY (1ULL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1ULL << 1UL)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1ULL << 2UL)

/* Versioned managed tensor, exchanged in capsules named "dltensor_versioned".
 * version, manager_ctx, deleter and flags keep their offsets across major
 * versions, so a consumer can always call the deleter of a tensor it refuses. */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

#ifdef __cplusplus
}
#endif
#endif /* LIBTENSOR_DLPACK_ABI_H */
