/* _cdefs.h: what Python may call in libtensor, in libtensor.h's order.
 * cffi cannot read the real header (it has directives), so this is a
 * hand-kept copy; API mode compiles it against libtensor.h, so any drift is
 * a build error, not silent corruption. */

#define LT_MAX_NDIM ...

/* status */
typedef enum lt_status {
    LT_OK = 0, LT_ENOMEM = -1, LT_EINVAL = -2, LT_ERANGE = -3, LT_EOVERFLOW = -4,
    LT_EREADONLY = -5, LT_EDEVICE = -6, LT_EDTYPE = -7, LT_EIO = -8, LT_EDLPACK = -9
} lt_status;
const char *lt_status_name(lt_status status);
const char *lt_strerror(lt_status status);
const char *lt_last_error(void);

/* DLPack ABI */
typedef struct { uint32_t major; uint32_t minor; } DLPackVersion;
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
    void *data; DLDevice device; int32_t ndim; DLDataType dtype;
    int64_t *shape; int64_t *strides; uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor; void *manager_ctx; void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
typedef struct DLManagedTensorVersioned {
    DLPackVersion version; void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags; DLTensor dl_tensor;
} DLManagedTensorVersioned;

/* dtype */
typedef enum lt_dtype {
    LT_BOOL = 0, LT_UINT8, LT_UINT16, LT_UINT32, LT_UINT64, LT_INT8, LT_INT16, LT_INT32,
    LT_INT64, LT_FLOAT16, LT_BFLOAT16, LT_FLOAT32, LT_FLOAT64, LT_COMPLEX64, LT_COMPLEX128,
    LT_FLOAT8_E4M3FN, LT_FLOAT8_E4M3FNUZ, LT_FLOAT8_E5M2, LT_FLOAT8_E5M2FNUZ, LT_FLOAT8_E8M0FNU,
    LT_FLOAT4_E2M1FN_X2,
    LT_DTYPE_COUNT
} lt_dtype;
size_t lt_dtype_itemsize(lt_dtype dtype);
const char *lt_dtype_name(lt_dtype dtype);
lt_status lt_dtype_from_dlpack(lt_dtype *out, uint8_t code, uint8_t bits, uint16_t lanes);
lt_status lt_dtype_to_dlpack(DLDataType *out, lt_dtype dtype);

/* storage */
typedef struct lt_storage lt_storage;
typedef void (*lt_deleter)(void *ctx);
#define LT_STORAGE_READONLY 1
#define LT_STORAGE_PINNED 2
typedef enum lt_provenance {
    LT_PROV_OWNED = 0, LT_PROV_BUFFER, LT_PROV_NUMPY, LT_PROV_FILE, LT_PROV_DLPACK, LT_PROV_FOREIGN,
    LT_PROV_SHARED
} lt_provenance;
lt_status lt_storage_new(lt_storage **out, size_t nbytes, int zero);
lt_status lt_storage_wrap(lt_storage **out, void *data, size_t nbytes, unsigned flags,
                          lt_provenance provenance, lt_deleter deleter, void *ctx);
lt_status lt_storage_resize(lt_storage *storage, size_t nbytes);
void lt_storage_pin(lt_storage *storage);
void lt_storage_retain(lt_storage *storage);
void lt_storage_release(lt_storage *storage);
void *lt_storage_data(const lt_storage *storage);
size_t lt_storage_nbytes(const lt_storage *storage);
unsigned lt_storage_flags(const lt_storage *storage);
lt_provenance lt_storage_provenance(const lt_storage *storage);
int64_t lt_storage_refcount(const lt_storage *storage);
int32_t lt_storage_device_type(const lt_storage *storage);
int32_t lt_storage_device_id(const lt_storage *storage);
void lt_storage_set_device(lt_storage *storage, int32_t device_type, int32_t device_id);
void lt_storage_set_label(lt_storage *storage, const char *label);
const char *lt_storage_label(const lt_storage *storage);
uint64_t lt_storage_version(const lt_storage *storage);
void lt_storage_bump_version(lt_storage *storage);
int64_t lt_storage_live_count(void);
typedef enum lt_map_mode { LT_MAP_SHARED = 0, LT_MAP_PRIVATE = 1, LT_MAP_READONLY = 2 } lt_map_mode;
lt_status lt_storage_map_file(lt_storage **out, const char *path, lt_map_mode mode, int64_t nbytes);
lt_status lt_storage_resident_pages(uint8_t *out, size_t out_npages, const lt_storage *storage);
lt_status lt_storage_copied_pages(uint8_t *out, size_t out_npages, const lt_storage *storage);
lt_status lt_storage_resident_page_range(uint8_t *out, size_t out_npages, const lt_storage *storage,
                                         size_t byte_offset, size_t nbytes);
lt_status lt_storage_copied_page_range(uint8_t *out, size_t out_npages, const lt_storage *storage,
                                       size_t byte_offset, size_t nbytes);

/* shared memory */
#define LT_SHM_SMALL_NBYTES ...
#define LT_SHM_ARENA_NBYTES ...
typedef struct lt_storage_identity { uint64_t device; uint64_t inode; int64_t byte_offset; } lt_storage_identity;
lt_status lt_storage_new_shared(lt_storage **out, size_t nbytes);
lt_status lt_storage_new_shared_keeping(lt_storage **out, size_t nbytes, lt_storage *keep);
int lt_storage_is_shared(const lt_storage *storage);
lt_status lt_storage_shared_fd(int *out_fd, size_t *out_region_nbytes, int64_t *out_byte_offset,
                               const lt_storage *storage);
lt_status lt_storage_from_shared_identity(lt_storage **out, uint64_t device, uint64_t inode, int64_t byte_offset,
                                          size_t nbytes, unsigned flags);
lt_status lt_storage_from_shared_fd(lt_storage **out, int fd, int64_t byte_offset, size_t nbytes, unsigned flags);
lt_status lt_storage_shared_in_flight_add(int64_t *out_count, const lt_storage *storage, int64_t delta);
lt_status lt_storage_identity_of(lt_storage_identity *out, const lt_storage *storage);
int64_t lt_shm_region_count(void);
#define LT_MAPPING_WRITABLE ...
#define LT_MAPPING_PRIVATE ...
lt_status lt_address_identity(lt_storage_identity *out, unsigned *out_flags, const void *addr, size_t nbytes);
lt_status lt_address_copied_pages(uint8_t *out, size_t out_npages, const void *addr, size_t nbytes);

/* layout */
lt_status lt_layout_numel(int64_t *out, int32_t ndim, const int64_t *shape);
lt_status lt_layout_nbytes(int64_t *out, int32_t ndim, const int64_t *shape, size_t itemsize);
lt_status lt_layout_extent(int64_t *lo_byte, int64_t *hi_byte, int32_t ndim, const int64_t *shape,
                           const int64_t *strides, int64_t offset, size_t itemsize);
lt_status lt_layout_byte_extent(int64_t *lo_byte, int64_t *hi_byte, int32_t ndim, const int64_t *shape,
                                const int64_t *byte_strides, int64_t byte_offset, size_t itemsize);
lt_status lt_layout_check(int32_t ndim, const int64_t *shape, const int64_t *strides, int64_t offset,
                          size_t itemsize, size_t storage_nbytes);
int lt_layout_is_contiguous(int32_t ndim, const int64_t *shape, const int64_t *strides);
int lt_layout_has_internal_overlap(int32_t ndim, const int64_t *shape, const int64_t *strides);
lt_status lt_layout_contiguous_strides(int64_t *out_strides, int32_t ndim, const int64_t *shape);
lt_status lt_layout_infer_shape(int64_t *out_shape, int32_t ndim, const int64_t *shape, int64_t numel);
lt_status lt_layout_view_strides(int64_t *out_strides, int *out_viewable, int32_t old_ndim, const int64_t *old_shape,
                                 const int64_t *old_strides, int32_t new_ndim, const int64_t *new_shape);
lt_status lt_layout_broadcast_shapes(int64_t *out_shape, int32_t *out_ndim, int32_t nshapes, const int32_t *ndims,
                                     const int64_t *const *shapes);
int lt_layout_is_non_overlapping_and_dense(int32_t ndim, const int64_t *shape, const int64_t *strides);
lt_status lt_layout_preserve_strides(int64_t *out_strides, int32_t ndim, const int64_t *shape, const int64_t *strides);
lt_status lt_layout_result_strides(int64_t *out_strides, int32_t ndim, const int64_t *shape, int32_t noperands,
                                   const int32_t *ndims, const int64_t *const *shapes,
                                   const int64_t *const *strides);
lt_status lt_layout_broadcast_strides(int64_t *out_strides, int32_t ndim, const int64_t *shape, int32_t op_ndim,
                                      const int64_t *op_shape, const int64_t *op_strides);
lt_status lt_layout_unsqueeze_strides(int64_t *out_strides, int32_t ndim, const int64_t *shape,
                                      const int64_t *strides, int32_t dim);
lt_status lt_layout_infer_dense_strides(int64_t *out_strides, int32_t ndim, const int64_t *shape,
                                        const int64_t *strides);
lt_status lt_layout_diagonal(int64_t *out_shape, int64_t *out_strides, int64_t *out_offset, int32_t ndim,
                             const int64_t *shape, const int64_t *strides, int64_t offset, int64_t diag_offset,
                             int32_t dim1, int32_t dim2);
lt_status lt_layout_select(int64_t *out_shape, int64_t *out_strides, int64_t *out_offset, int32_t ndim,
                           const int64_t *shape, const int64_t *strides, int64_t offset, int32_t dim, int64_t index);
lt_status lt_layout_narrow(int64_t *out_shape, int64_t *out_offset, int32_t ndim, const int64_t *shape,
                           const int64_t *strides, int64_t offset, int32_t dim, int64_t start, int64_t length);
lt_status lt_layout_unfold(int64_t *out_shape, int64_t *out_strides, int32_t ndim, const int64_t *shape,
                           const int64_t *strides, int32_t dim, int64_t size, int64_t step);
lt_status lt_layout_split_lengths(int64_t *out_count, int64_t *out_length, int64_t *out_last, int64_t size,
                                  int64_t split_size);
lt_status lt_layout_chunk_lengths(int64_t *out_count, int64_t *out_length, int64_t *out_last, int64_t size,
                                  int64_t chunks);

/* kernels */
void lt_set_num_threads(int nthreads);
int lt_get_num_threads(void);
lt_status lt_copy(void *dst, const int64_t *dst_strides, lt_dtype dst_dtype, const void *src,
                  const int64_t *src_strides, lt_dtype src_dtype, int32_t ndim, const int64_t *shape);
lt_status lt_fill(void *dst, const int64_t *dst_strides, lt_dtype dst_dtype, const void *value,
                  lt_dtype value_dtype, int32_t ndim, const int64_t *shape);
lt_status lt_fill_arange(lt_storage *storage, lt_dtype dtype, int64_t n, const void *start, const void *step,
                         lt_dtype value_dtype);
lt_status lt_fill_linspace(lt_storage *storage, lt_dtype dtype, int64_t n, const void *start, const void *end,
                           lt_dtype value_dtype);
typedef enum lt_binop {
    LT_OP_ADD = 0, LT_OP_SUB, LT_OP_MUL, LT_OP_DIV, LT_OP_EQ, LT_OP_NE, LT_OP_LT, LT_OP_LE,
    LT_OP_GT, LT_OP_GE
} lt_binop;
lt_status lt_binary(lt_binop op, lt_dtype dtype, int32_t ndim, const int64_t *shape, void *out,
                    const int64_t *out_strides, const void *a, const int64_t *a_strides, const void *b,
                    const int64_t *b_strides);
lt_status lt_equal(int *out_equal, lt_dtype dtype, int32_t ndim, const int64_t *shape, const void *a,
                   const int64_t *a_strides, const void *b, const int64_t *b_strides);
lt_status lt_all_any(void *dst, const int64_t *dst_strides, lt_dtype dst_dtype, const void *src,
                     const int64_t *src_strides, lt_dtype src_dtype, int32_t ndim, const int64_t *shape,
                     int want_all);
lt_status lt_sum(void *dst, const int64_t *dst_strides, lt_dtype dst_dtype, const void *src,
                 const int64_t *src_strides, lt_dtype src_dtype, int32_t ndim, const int64_t *shape);

/* gather and scatter */
lt_status lt_mask_count(int64_t *out, const void *mask, const int64_t *mask_strides, int32_t ndim,
                        const int64_t *shape);
lt_status lt_mask_positions(int64_t *out, int64_t row_stride, int64_t col_stride, int64_t count, int32_t ncols,
                            const int64_t *weights, const void *mask, const int64_t *mask_strides, int32_t ndim,
                            const int64_t *shape);
lt_status lt_mask_gather(void *dst, const void *src, const int64_t *src_strides, lt_dtype dtype, const void *mask,
                         const int64_t *mask_strides, int32_t ndim, const int64_t *shape, int64_t count);
lt_status lt_mask_scatter(void *dst, const int64_t *dst_strides, const void *src, int64_t src_stride, lt_dtype dtype,
                          const void *mask, const int64_t *mask_strides, int32_t ndim, const int64_t *shape,
                          int64_t count);
lt_status lt_index_offsets(int64_t *out, int32_t nidx, const int64_t *const *index, const int64_t *index_strides,
                           const int64_t *dim_sizes, const int64_t *dim_strides, const int64_t *dim_ids,
                           int wrap_negative, int32_t ndim, const int64_t *shape);
lt_status lt_index_gather(void *dst, const int64_t *dst_strides, const void *src, const int64_t *src_strides,
                          const int64_t *offsets, const int64_t *offset_strides, lt_dtype dtype, int32_t ndim,
                          const int64_t *shape);
lt_status lt_index_scatter(void *dst, const int64_t *dst_strides, const int64_t *offsets,
                           const int64_t *offset_strides, const void *src, const int64_t *src_strides, lt_dtype dtype,
                           int accumulate, int32_t ndim, const int64_t *shape);
lt_status lt_index_take(void *dst, const int64_t *dst_strides, const void *src, const int64_t *src_strides,
                        const int64_t *index, const int64_t *index_strides, int64_t dim_size, int64_t dim_stride,
                        int64_t dim_id, int wrap_negative, lt_dtype dtype, int32_t ndim, const int64_t *shape);
lt_status lt_where(void *dst, const int64_t *dst_strides, const void *cond, const int64_t *cond_strides,
                   const void *a, const int64_t *a_strides, const void *b, const int64_t *b_strides, lt_dtype dtype,
                   int32_t ndim, const int64_t *shape);

/* dlpack */
#define LT_EXPORT_VERSIONED 1
#define LT_EXPORT_COPIED 2
lt_status lt_dlpack_export(void **out, lt_storage *storage, lt_dtype dtype, int32_t ndim,
                           const int64_t *shape, const int64_t *strides, int64_t offset, unsigned flags);
lt_status lt_dlpack_import(lt_storage **out, lt_dtype *out_dtype, int32_t *out_ndim, int64_t *out_shape,
                           int64_t *out_strides, int64_t *out_offset, void *managed, int versioned);


/* random */
typedef struct lt_generator lt_generator;
#define LT_GENERATOR_STATE_NBYTES 5056
lt_status lt_generator_new(lt_generator **out, uint64_t seed);
void lt_generator_free(lt_generator *gen);
void lt_generator_manual_seed(lt_generator *gen, uint64_t seed);
uint64_t lt_generator_initial_seed(const lt_generator *gen);
lt_status lt_generator_get_state(const lt_generator *gen, uint8_t *out, size_t nbytes);
lt_status lt_generator_set_state(lt_generator *gen, const uint8_t *state, size_t nbytes);
lt_status lt_random_uniform(lt_generator *gen, lt_storage *storage, int64_t offset, lt_dtype dtype, int64_t n,
                            double from, double to);
lt_status lt_random_normal(lt_generator *gen, lt_storage *storage, int64_t offset, lt_dtype dtype, int64_t n,
                           double mean, double std, int contiguous);
lt_status lt_random_int(lt_generator *gen, lt_storage *storage, int64_t offset, lt_dtype dtype, int64_t n,
                        uint64_t range, int64_t low);
lt_status lt_random_perm(lt_generator *gen, lt_storage *storage, int64_t offset, lt_dtype dtype, int64_t n);
lt_status lt_complex_negate_parts(void *dst, const void *src, int64_t n, lt_dtype dtype, int negate_real,
                                  int negate_imag);
