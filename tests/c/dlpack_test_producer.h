/* dlpack_test_producer.h: a foreign DLPack producer for tests only, built
 * into tests/c/test_dlpack.c by meson and compiled at test time into a shared
 * library for the Python tests (tests/dlpack_producer.py, cffi ABI mode).
 *
 * It stands alone: it uses the DLPack ABI declarations
 * (libtensor/dlpack_abi.h) and the C library, and no libtensor symbol, so it
 * behaves like a producer libtensor has never seen. */
#ifndef DLPACK_TEST_PRODUCER_H
#define DLPACK_TEST_PRODUCER_H

#include <stddef.h>
#include <stdint.h>

#include "libtensor/dlpack_abi.h"

/* Builds a DLPack managed tensor the way a foreign producer would, for tests
 * that count deleter calls and feed malformed tensors to consumers. *out is a
 * DLManagedTensorVersioned* (versioned != 0, with the given flags and version
 * {major, DLPACK_MINOR_VERSION}) or a DLManagedTensor*, on kDLCPU, with
 * dtype as given (itemsize is its size in bytes, used to size the buffer).
 * ndim, shape, strides and byte_offset are copied as given, even when
 * invalid: shape and strides may be NULL (then NULL in the tensor too).
 *
 * The tensor owns a zeroed heap buffer, returned in *out_buffer and
 * *out_nbytes for the caller to fill (the tests write value k into element
 * slot k, counted from the buffer's start). data points into it so that every
 * element the metadata reaches lies inside:  data = buffer + (-lo),  where lo
 * (<= 0) is the lowest byte the strides reach below element 0 (compact
 * row-major strides when strides is NULL). Metadata that cannot be measured,
 * or that reaches more than 256 MiB, gets a small buffer and data = buffer:
 * such tensors are for refusal tests only. Tests may edit fields (device,
 * dtype, data) before handing the tensor over.
 *
 * The deleter frees everything and then atomically adds 1 to *deleter_calls
 * (when not NULL). Returns 0, or -1 when out is NULL or memory runs out.
 * On success the caller owns *out and must call its deleter exactly once;
 * *out_buffer is borrowed from it (valid until the deleter runs). */
int dlpack_test_producer(void **out, void **out_buffer, size_t *out_nbytes, int versioned, DLDataType dtype,
                         size_t itemsize, int32_t ndim, const int64_t *shape, const int64_t *strides,
                         uint64_t byte_offset, uint64_t flags, uint32_t major, int64_t *deleter_calls);

#endif
