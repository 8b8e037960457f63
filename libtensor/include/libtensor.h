/*
 * libtensor.h: the published API of libtensor, pytensor's C runtime.
 *
 * This header is the contract. Everything a caller may rely on is declared
 * and described here; anything not declared here is private and may change.
 *
 * Overview
 * --------
 * libtensor owns memory and moves elements; it knows nothing about Python.
 *
 *   storage   A refcounted block of bytes: heap memory we allocated, foreign
 *             memory wrapped with a deleter, a memory-mapped file, or a DLPack
 *             import. Every storage has exactly one deleter, which runs
 *             exactly once, when the last reference is released.
 *   dtype     An element type (bool, unsigned and signed integers, float16,
 *             bfloat16, float32/64, complex64/128, the float8s and packed
 *             float4) with its size and DLPack code.
 *   layout    A view of a storage is (dtype, ndim, shape, strides, offset).
 *             Strides and offsets are counted in ELEMENTS, as in DLPack; a
 *             byte address is  data + (offset + sum_i index[i]*strides[i]) * itemsize.
 *   kernels   Strided copy with conversion between any two dtypes, fill,
 *             sequences (arange, linspace) generated into a storage,
 *             elementwise arithmetic and comparison, and summation.
 *   dlpack    Export and import of DLPack v1.x managed tensors (legacy and
 *             versioned), declared in libtensor/dlpack_abi.h.
 *
 * Errors: fallible functions return lt_status (LT_OK == 0, errors < 0). The
 * calling thread's lt_last_error() then holds a sentence naming the numbers
 * involved. No function aborts on bad input; assertions guard only internal
 * invariants.
 *
 * Threads: refcounts and version counters are atomic, so storages may be
 * retained and released from any thread. Kernels may split large jobs over
 * worker threads internally (see lt_set_num_threads); they return only when
 * every worker has finished.
 *
 * Worked example: two overlapping views of one storage.
 *
 *     lt_storage *s = NULL;
 *     if (lt_storage_new(&s, 8 * sizeof(float), 1) != LT_OK)   // 8 zeroed floats
 *         fprintf(stderr, "%s\n", lt_last_error());
 *     float *f = lt_storage_data(s);
 *     for (int i = 0; i < 8; i++) f[i] = (float)i;
 *     int64_t shape[1] = {4}, unit[1] = {1};
 *     // view a = elements 0..3, view b = elements 2..5: they share bytes 8..15.
 *     // copy a into b; the kernel handles overlap as if through a temporary.
 *     lt_copy(f + 2, unit, LT_FLOAT32, f + 0, unit, LT_FLOAT32, 1, shape);
 *     // f is now 0 1 0 1 2 3 6 7
 *     lt_storage_release(s);                                     // frees the bytes
 *
 * A longer program lives in examples/c/minimal.c.
 */
#ifndef LIBTENSOR_H
#define LIBTENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "libtensor/dlpack_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LT_VERSION_MAJOR 0
#define LT_VERSION_MINOR 1
#define LT_MAX_NDIM 64

/* ---------------------------------------------------------------- status */

/* X(name, value, message): one list generates the enum, lt_status_name and
 * lt_strerror so the three can never disagree. */
#define LT_STATUS_MAP(X)                                                      \
    X(OK, 0, "success")                                                       \
    X(ENOMEM, -1, "out of memory")                                            \
    X(EINVAL, -2, "invalid argument")                                         \
    X(ERANGE, -3, "index or extent out of range")                             \
    X(EOVERFLOW, -4, "size arithmetic overflows")                             \
    X(EREADONLY, -5, "storage is read-only")                                  \
    X(EDEVICE, -6, "memory is not on the host")                               \
    X(EDTYPE, -7, "unsupported dtype or dtype combination")                   \
    X(EIO, -8, "file or mapping error")                                       \
    X(EDLPACK, -9, "DLPack exchange refused")

typedef enum lt_status {
#define LT__STATUS_ENUM(name, value, msg) LT_##name = value,
    LT_STATUS_MAP(LT__STATUS_ENUM)
#undef LT__STATUS_ENUM
} lt_status;

/* "LT_EINVAL" for LT_EINVAL; "LT_UNKNOWN" for values outside the list.
 * Returns a static string (borrowed, never freed). */
const char *lt_status_name(lt_status status);

/* The fixed one-line message of a status ("invalid argument").
 * Returns a static string (borrowed, never freed). */
const char *lt_strerror(lt_status status);

/* The detail message of the last error raised on the calling thread, or ""
 * when none. The text names the numbers involved, e.g. "view needs bytes
 * [0, 96) but the storage holds 64 bytes". Returns thread-local memory that
 * stays valid until this thread's next failing libtensor call (borrowed). */
const char *lt_last_error(void);

/* ---------------------------------------------------------------- dtype */

/* Values are stable and form a dense range [0, LT_DTYPE_COUNT). */
typedef enum lt_dtype {
    LT_BOOL = 0,
    LT_UINT8,
    LT_UINT16,
    LT_UINT32,
    LT_UINT64,
    LT_INT8,
    LT_INT16,
    LT_INT32,
    LT_INT64,
    LT_FLOAT16,
    LT_BFLOAT16,
    LT_FLOAT32,
    LT_FLOAT64,
    LT_COMPLEX64,
    LT_COMPLEX128,
    /* DLPack 1.1's low-precision floats, torch's names. Each float8 is one
     * byte and converts to and from the other dtypes as torch 2.13 converts
     * (through float32); they have no arithmetic (lt_binary and lt_sum refuse
     * them). FLOAT4_E2M1FN_X2 packs two 4-bit floats in one byte: storage
     * only, like torch's, so it has no conversions either (LT_EDTYPE). */
    LT_FLOAT8_E4M3FN,
    LT_FLOAT8_E4M3FNUZ,
    LT_FLOAT8_E5M2,
    LT_FLOAT8_E5M2FNUZ,
    LT_FLOAT8_E8M0FNU,
    LT_FLOAT4_E2M1FN_X2,
    LT_DTYPE_COUNT
} lt_dtype;

/* Bytes per element, or 0 for a value outside the enum. */
size_t lt_dtype_itemsize(lt_dtype dtype);

/* Lower-case name ("float32"), or "invalid". Static string (borrowed). */
const char *lt_dtype_name(lt_dtype dtype);

/* Maps a DLPack (code, bits, lanes) triple to a dtype. Fails with
 * LT_EDTYPE for combinations libtensor has no dtype for (lanes other than 1,
 * except float4_e2m1fn's 2; float8_e3m4, float6; opaque handles, ...).
 * Writes *out only on success. */
lt_status lt_dtype_from_dlpack(lt_dtype *out, uint8_t code, uint8_t bits, uint16_t lanes);

/* The DLPack description of a dtype. Fails with LT_EDTYPE for a value
 * outside the enum. */
lt_status lt_dtype_to_dlpack(DLDataType *out, lt_dtype dtype);

/* ---------------------------------------------------------------- storage */

typedef struct lt_storage lt_storage;

/* Called exactly once with the ctx given at creation, when the last
 * reference is released, on whichever thread released it. */
typedef void (*lt_deleter)(void *ctx);

/* Storage flags: bits, combinable. */
#define LT_STORAGE_READONLY 0x1u /* writes through libtensor are refused */
#define LT_STORAGE_PINNED 0x2u   /* the bytes never move: lt_storage_resize refuses (see lt_storage_pin) */

/* Where the bytes came from. Informational: the inspector draws it. */
typedef enum lt_provenance {
    LT_PROV_OWNED = 0,  /* allocated by lt_storage_new */
    LT_PROV_BUFFER,     /* a borrowed buffer (bytes, bytearray, memoryview, ...) */
    LT_PROV_NUMPY,      /* memory owned by a NumPy array */
    LT_PROV_FILE,       /* a memory-mapped file (lt_storage_map_file) */
    LT_PROV_DLPACK,     /* imported from a DLPack producer */
    LT_PROV_FOREIGN,    /* any other wrapped memory */
    LT_PROV_SHARED      /* anonymous shared memory (storage_shm.c) */
} lt_provenance;

/* Allocates nbytes (0 allowed) aligned to 64 bytes, zero-filled when zero is
 * non-zero; otherwise the contents are unspecified (and untouched pages may
 * read as zero later). Blocks of 2 MiB and more are mapped 2 MiB-aligned and
 * advised to use transparent huge pages; when zero is 0 they may reuse a
 * block from the cache of freed blocks (see lt_storage_trim), which saves
 * the kernel's page faults. Thread-safe. Fails with LT_ENOMEM.
 * Returns a new reference in *out: release it with lt_storage_release. */
lt_status lt_storage_new(lt_storage **out, size_t nbytes, int zero);

/* A new storage of libtensor's own (LT_PROV_OWNED, resizable as any) holding
 * a copy of the nbytes at src (src may be NULL only when nbytes is 0; the
 * ranges must not overlap). Unlike lt_storage_new, a block of 2 MiB and more
 * is not advised to use transparent huge pages: it is populated in 4 KiB
 * pages in one call and then written whole. Huge pages would need free 2 MiB
 * blocks at the first touch, which the kernel may first have to compact (THP
 * defrag=madvise) or, in a VM with free page reporting, fault back in from
 * the host: seconds per GiB, against one predictable copy (storage.c,
 * "Huge-page advice", has the numbers). A reused cached block loses the
 * advice. Thread-safe; fails with LT_EINVAL, LT_ENOMEM or LT_EOVERFLOW.
 * Borrows src; returns a new reference in *out. */
lt_status lt_storage_new_copy(lt_storage **out, const void *src, size_t nbytes);

/* Wraps memory libtensor does not own. deleter(ctx) runs exactly once when
 * the last reference goes, and also when this call fails (so the caller
 * never has to clean up twice); deleter may be NULL. data may be NULL only
 * when nbytes is 0. flags is a set of LT_STORAGE_* bits.
 * Takes ownership of ctx; returns a new reference in *out (release with
 * lt_storage_release). */
lt_status lt_storage_wrap(lt_storage **out, void *data, size_t nbytes, unsigned flags,
                          lt_provenance provenance, lt_deleter deleter, void *ctx);

/* Grows a storage that libtensor owns (from lt_storage_new) to nbytes,
 * moving its bytes to a new block: the first lt_storage_nbytes bytes are
 * kept, the rest are unspecified, and lt_storage_data changes. A size not
 * above the current one changes nothing. Refused with LT_EINVAL, changing
 * nothing, for wrapped memory (it belongs to someone else), for a pinned
 * storage, and while anything but the caller holds a reference: every other
 * holder may still be reading the old address. So the caller must hold the
 * only reference, and no other thread may use the storage during the call.
 * Fails with LT_ENOMEM or LT_EOVERFLOW (nbytes beyond int64). Borrows. */
lt_status lt_storage_resize(lt_storage *storage, size_t nbytes);

/* Sets LT_STORAGE_PINNED: call it before handing the data address to code
 * that keeps it beyond any reference count (a NumPy array over the bytes);
 * lt_storage_resize refuses from then on. Irreversible, atomic. Borrows. */
void lt_storage_pin(lt_storage *storage);

/* Adds a reference. Thread-safe. NULL is ignored. */
void lt_storage_retain(lt_storage *storage);

/* Drops a reference; the last one runs the deleter (or frees owned memory)
 * and then the storage itself. Thread-safe. NULL is ignored. */
void lt_storage_release(lt_storage *storage);

/* Accessors: borrow, never transfer ownership. */
void *lt_storage_data(const lt_storage *storage);
size_t lt_storage_nbytes(const lt_storage *storage);
unsigned lt_storage_flags(const lt_storage *storage);
lt_provenance lt_storage_provenance(const lt_storage *storage);
/* Current reference count (a snapshot: other threads may change it). */
int64_t lt_storage_refcount(const lt_storage *storage);

/* DLPack device of the bytes; kDLCPU/0 unless set. Memory on another device
 * is never touched by libtensor kernels (callers check and refuse). */
int32_t lt_storage_device_type(const lt_storage *storage);
int32_t lt_storage_device_id(const lt_storage *storage);
void lt_storage_set_device(lt_storage *storage, int32_t device_type, int32_t device_id);

/* A short human-readable note on the provenance ("/tmp/x.bin (shared)",
 * "numpy", a producer's name). lt_storage_set_label copies the text,
 * truncating at 255 bytes; lt_storage_label returns "" when unset.
 * The returned string is borrowed and lives as long as the storage. */
void lt_storage_set_label(lt_storage *storage, const char *label);
const char *lt_storage_label(const lt_storage *storage);

/* Write version: bumped by every libtensor kernel that writes into the
 * storage, and by callers that write through other paths. Atomic. */
uint64_t lt_storage_version(const lt_storage *storage);
void lt_storage_bump_version(lt_storage *storage);

/* Number of storages alive in this process (created and not yet freed).
 * For leak tests. */
int64_t lt_storage_live_count(void);

/* Unmaps every block in the cache of freed large blocks and returns how many
 * bytes that gave back to the system. When the last reference to a storage
 * from lt_storage_new of 2 MiB or more goes, its pages are kept in this
 * cache (at most 4 blocks and 256 MiB, newest first, marked MADV_FREE so the
 * kernel may reclaim them under memory pressure) for the next lt_storage_new
 * of a similar size. The cache belongs to libtensor and holds no storage, so
 * it never shows in lt_storage_live_count; it is reachable until exit, when
 * the system unmaps it. Call this to return the memory sooner. Thread-safe;
 * returns 0 without waiting if another thread is using the cache.
 * Takes and returns no references; the cache is libtensor's alone. */
size_t lt_storage_trim(void);

/* Memory-mapped files.
 * LT_MAP_SHARED:   MAP_SHARED, read-write; writes reach the file. A missing
 *                  file is created (mode 0600, less the umask, as torch's
 *                  from_file) and a short file is extended to nbytes
 *                  without changing any existing byte. The file is never
 *                  shortened, even while another writer appends (given a
 *                  file system with fallocate; see storage_mmap.c), and a
 *                  mapping that fails after growing the file puts it back
 *                  to its first size.
 * LT_MAP_PRIVATE:  MAP_PRIVATE copy-on-write; the file never changes. The file
 *                  must already hold nbytes.
 * LT_MAP_READONLY: PROT_READ, MAP_SHARED; the storage is read-only.
 * nbytes < 0 maps the whole file. The mapping lives until the storage's last
 * reference is released; the file descriptor is closed before returning.
 * Fails with LT_EIO (with errno's text in lt_last_error) or LT_EINVAL.
 * Returns a new reference in *out (release with lt_storage_release). */
typedef enum lt_map_mode {
    LT_MAP_SHARED = 0,
    LT_MAP_PRIVATE = 1,
    LT_MAP_READONLY = 2
} lt_map_mode;
lt_status lt_storage_map_file(lt_storage **out, const char *path, lt_map_mode mode, int64_t nbytes);

/* Which pages of a mapped file are in RAM, and which a private map has
 * copied, one byte per page (0 or 1) in out. Pages are the system's
 * (sysconf(_SC_PAGESIZE) bytes), counted from the page holding the
 * storage's first byte, so a storage of nbytes at address data spans
 *   npages = (data % page_nbytes + nbytes + page_nbytes - 1) / page_nbytes
 * pages; out must hold that many (an empty storage spans none: LT_OK, out
 * untouched). The storage's bytes must lie in a live mapping made by
 * lt_storage_map_file; any storage over them will do (a DLPack import of a
 * mapped tensor, say). Neither call reads a byte of the mapping, so asking
 * never pulls a page in; each answer is a snapshot, as the kernel reads
 * and evicts pages at any moment.
 *
 * lt_storage_resident_pages: out[i] = 1 when page i is in RAM (mincore):
 * mapped by this process, or in the page cache, where a first touch reads
 * no disk. Fails with LT_EIO when the kernel will not say: Linux 5.0 and
 * later answer only for files this process owns or may write (for any other
 * file mincore reports every page resident, so we refuse to pass that on).
 *
 * lt_storage_copied_pages: for an LT_MAP_PRIVATE mapping, out[i] = 1 when
 * page i was written and so copied on write: this process holds its own
 * copy, which no longer matches the file. Read from /proc/self/pagemap
 * (an anonymous page, in RAM or swapped, where the map had the file's
 * page). Fails with LT_EINVAL for a shared or read-only mapping (nothing is
 * ever copied there: writes reach the file, or are refused) and with
 * LT_EIO when /proc/self/pagemap cannot be read (not Linux, a sandboxed
 * /proc, or a kernel before 4.2 hiding it from unprivileged processes);
 * lt_last_error gives the reason.
 *
 * Both fail with LT_EINVAL when the bytes lie in no such mapping and with
 * LT_ERANGE when out is NULL or holds fewer than npages bytes.
 * Thread-safe. Borrows storage and out. */
lt_status lt_storage_resident_pages(uint8_t *out, size_t out_npages, const lt_storage *storage);
lt_status lt_storage_copied_pages(uint8_t *out, size_t out_npages, const lt_storage *storage);

/* The same answers for the storage's bytes [byte_offset, byte_offset +
 * nbytes) only, so a caller that draws part of a large mapping asks about
 * the pages it draws: page i is the i-th page touched by those bytes,
 * counted from the page holding byte byte_offset (npages as above, with
 * data + byte_offset and nbytes). Fails with LT_ERANGE when the range is
 * not inside the storage; otherwise as above. The whole-storage calls are
 * these with (0, the storage's nbytes). Borrows storage and out. */
lt_status lt_storage_resident_page_range(uint8_t *out, size_t out_npages, const lt_storage *storage,
                                         size_t byte_offset, size_t nbytes);
lt_status lt_storage_copied_page_range(uint8_t *out, size_t out_npages, const lt_storage *storage,
                                       size_t byte_offset, size_t nbytes);

/* ---------------------------------------------------------------- shared memory (storage_shm.c)
 *
 * Storages other processes can map: anonymous shared memory (memfd_create,
 * or shm_open with the name unlinked at once when memfd is missing), so no
 * name exists that a killed process could leak.
 *
 * Regions. Shared bytes live in regions, each one open descriptor and one
 * MAP_SHARED mapping of it. Storages of at most LT_SHM_SMALL_NBYTES are
 * sub-allocated (64-byte aligned) from an arena region of
 * LT_SHM_ARENA_NBYTES; larger ones get a region each. So the descriptors a
 * process holds are bounded by its arenas plus its large storages, however
 * many small storages it makes or receives. Arena space is never reused: a
 * region (its descriptor, its mapping, and so its pages once no other
 * process maps it) goes when its last storage here is released and, for an
 * arena, once it is full. A child made by fork keeps the regions it
 * inherited but allocates from arenas of its own.
 *
 * Identity. Addresses differ between processes; a region's file does not.
 * A shared byte is named by (device, inode, byte_offset) of the file under
 * it: two processes mapping the same pages get the same triple.
 *
 * Every function here is thread-safe (one lock, made safe across fork).
 */
#define LT_SHM_SMALL_NBYTES ((size_t)1 << 20)  /* up to 1 MiB: sub-allocated from an arena */
#define LT_SHM_ARENA_NBYTES ((size_t)16 << 20) /* 16 MiB an arena (pages are used only once written) */

typedef struct lt_storage_identity {
    uint64_t device;     /* st_dev of the file under the bytes (the kernel's numbering, as /proc/PID/maps) */
    uint64_t inode;      /* st_ino of that file */
    int64_t byte_offset; /* the storage's first byte, counted from the file's first byte */
} lt_storage_identity;

/* Allocates nbytes (0 allowed) of zeroed shared memory: from an arena when
 * nbytes <= LT_SHM_SMALL_NBYTES, else in a region of its own. Flags are 0.
 * lt_storage_resize refuses it (the region is not libtensor's heap). Fails
 * with LT_EIO (errno's text in lt_last_error: no memfd and no shm_open,
 * out of descriptors, ...) or LT_EOVERFLOW. Returns a new reference in *out
 * (release with lt_storage_release). */
lt_status lt_storage_new_shared(lt_storage **out, size_t nbytes);

/* As lt_storage_new_shared, but the new storage also holds a reference to
 * keep (retained here), dropped only when the new storage is freed. For
 * moving a storage's bytes into shared memory: code that read the old
 * address just before the move (a kernel running without the GIL, say)
 * keeps valid memory rather than freed memory. NULL keep is allowed.
 * Fails as lt_storage_new_shared does (keep is then not retained). Returns a
 * new reference in *out (release with lt_storage_release). */
lt_status lt_storage_new_shared_keeping(lt_storage **out, size_t nbytes, lt_storage *keep);

/* 1 when the storage's bytes lie in a region of this table (made here or
 * received), else 0. Borrows. */
int lt_storage_is_shared(const lt_storage *storage);

/* The descriptor of the region holding storage's bytes, to send to another
 * process (SCM_RIGHTS), with the region's size and the storage's byte
 * offset in it (the region's size counts the bytes storages may span: not
 * its header). Fails with LT_EINVAL when the storage is not shared (see
 * lt_storage_is_shared). The descriptor is borrowed: it stays open while
 * any storage over the region lives here; do not close it (dup it to keep it). */
lt_status lt_storage_shared_fd(int *out_fd, size_t *out_region_nbytes, int64_t *out_byte_offset,
                               const lt_storage *storage);

/* A storage over bytes [byte_offset, byte_offset + nbytes) of a region this
 * process already maps, found by the region's (device, inode); *out is set
 * to NULL (and LT_OK returned) when no such region is mapped here: then
 * pass its descriptor to lt_storage_from_shared_fd. flags may be
 * LT_STORAGE_READONLY. Fails with LT_ERANGE when the bytes run past the
 * region. Returns a new reference in *out (or NULL); release it with
 * lt_storage_release. */
lt_status lt_storage_from_shared_identity(lt_storage **out, uint64_t device, uint64_t inode, int64_t byte_offset,
                                          size_t nbytes, unsigned flags);

/* A storage over bytes [byte_offset, byte_offset + nbytes) of the shared
 * file behind fd (from another process). The region is mapped once per
 * process: a region already mapped here (same device and inode) is reused,
 * otherwise fd is duplicated and the whole file mapped MAP_SHARED, read and
 * write. Fails with LT_EIO (fstat or mmap failed), LT_ERANGE (the bytes run
 * past the file) or LT_EINVAL (flags other than LT_STORAGE_READONLY).
 * Borrows fd (the caller still closes it). Returns a new reference in *out
 * (release with lt_storage_release). */
lt_status lt_storage_from_shared_fd(lt_storage **out, int fd, int64_t byte_offset, size_t nbytes, unsigned flags);

/* Adds delta to the count, kept in the region itself and so shared by every
 * process mapping it, of messages naming the region of storage's bytes that
 * were sent and not yet received, and writes the new count to *out_count
 * (delta 0 reads it). A sender adds 1 per message and a receiver takes 1
 * once it maps the bytes; a sender keeps the region open while the count
 * is above 0, so a message stays receivable after the sender's last tensor
 * over it is gone. Atomic across processes. Fails with LT_EINVAL when the
 * storage is not in a region made by lt_storage_new_shared (directly or
 * through a descriptor). Borrows. */
lt_status lt_storage_shared_in_flight_add(int64_t *out_count, const lt_storage *storage, int64_t delta);

/* The (device, inode, byte_offset) naming the storage's first byte: from the
 * region table for shared storages, else from the mapping listed in
 * /proc/self/maps that holds the storage's bytes (a file mapped by
 * lt_storage_map_file, a safetensors load, a region another library made).
 * Fails with LT_EINVAL when the bytes are in no file mapping (heap memory,
 * a private anonymous block) and with LT_EIO when /proc/self/maps cannot be
 * read. Borrows. */
lt_status lt_storage_identity_of(lt_storage_identity *out, const lt_storage *storage);

/* Flags of lt_address_identity: the mapping holding the bytes may be written
 * (LT_MAPPING_WRITABLE), and it is private, so its written pages are copies
 * of the file's that no other mapping sees (LT_MAPPING_PRIVATE). */
#define LT_MAPPING_WRITABLE 1u
#define LT_MAPPING_PRIVATE 2u

/* The (device, inode, byte_offset) naming the byte at addr, from the mapping
 * listed in /proc/self/maps that holds [addr, addr + nbytes): for memory no
 * lt_storage describes (a NumPy memmap, a Python mmap, another library's
 * mapping). *out_flags (NULL allowed) gets LT_MAPPING_* bits from the
 * mapping's permissions. Fails with LT_EINVAL when the bytes are in no file
 * mapping (or addr/out is NULL) and with LT_EIO when /proc/self/maps cannot
 * be read. Reads no byte at addr. */
lt_status lt_address_identity(lt_storage_identity *out, unsigned *out_flags, const void *addr, size_t nbytes);

/* lt_storage_copied_pages for memory no lt_storage maps (a NumPy memmap of
 * mode "c", another library's private file mapping): out[i] = 1 when page i
 * of [addr, addr + nbytes) (counted from the page holding addr) was written
 * and so copied on write, from /proc/self/pagemap. Fails with LT_EINVAL
 * when the bytes are not in one private, writable file mapping (per
 * lt_address_identity: a shared or read-only mapping copies nothing), with
 * LT_ERANGE when out holds fewer pages, and with LT_EIO when
 * /proc/self/pagemap cannot be read. Reads no byte at addr. */
lt_status lt_address_copied_pages(uint8_t *out, size_t out_npages, const void *addr, size_t nbytes);

/* Number of regions this process holds (each one descriptor and one
 * mapping). For tests of the descriptor bound. */
int64_t lt_shm_region_count(void);

/* ---------------------------------------------------------------- layout */

/* Number of elements of a shape, refusing negative extents and overflow
 * (LT_EINVAL, LT_EOVERFLOW). ndim 0 is a scalar: 1 element. The rule is
 * torch's: the running product of the extents, left to right, must stay
 * within uint64 and end within int64, even when an extent is 0 (so
 * (2^62, 2^62, 0) is refused and (3, 2^62, 0) holds 0 elements). Every
 * tensor's shape passes it. */
lt_status lt_layout_numel(int64_t *out, int32_t ndim, const int64_t *shape);

/* The bytes of a dense tensor of shape: numel * itemsize, by the numel rule
 * above, refused with LT_EOVERFLOW (and a message naming both numbers) past
 * int64. Every constructor of new memory sizes it with this. */
lt_status lt_layout_nbytes(int64_t *out, int32_t ndim, const int64_t *shape, size_t itemsize);

/* The half-open byte range [*lo_byte, *hi_byte) that a view can touch,
 * relative to the storage's start:
 *   lo_byte = (offset + sum over negative strides of (shape[i]-1)*strides[i]) * itemsize
 *   hi_byte = (offset + sum over positive strides of (shape[i]-1)*strides[i] + 1) * itemsize
 * A view with zero elements touches nothing: lo_byte == hi_byte == offset*itemsize.
 * This is lt_layout_byte_extent with byte strides strides[i]*itemsize and
 * byte offset offset*itemsize (one rule, one implementation). Fails with
 * LT_EOVERFLOW when any term overflows int64, LT_EINVAL for a bad shape or
 * NULL strides with ndim > 0. Borrows every array. */
lt_status lt_layout_extent(int64_t *lo_byte, int64_t *hi_byte, int32_t ndim, const int64_t *shape,
                           const int64_t *strides, int64_t offset, size_t itemsize);

/* The same range for strides and offset counted in BYTES, as NumPy's are
 * (a byte stride need not be a multiple of itemsize): from the lowest byte
 * any element starts at to the highest element start plus itemsize,
 *   lo_byte = byte_offset + sum over negative byte_strides of (shape[i]-1)*byte_strides[i]
 *   hi_byte = byte_offset + sum over positive byte_strides of (shape[i]-1)*byte_strides[i] + itemsize
 * and lo_byte == hi_byte == byte_offset for a view with zero elements. An
 * extent-1 dimension contributes nothing, whatever its stride. The
 * inspector draws views with this rule. Fails as lt_layout_extent does.
 * Borrows every array. */
lt_status lt_layout_byte_extent(int64_t *lo_byte, int64_t *hi_byte, int32_t ndim, const int64_t *shape,
                                const int64_t *byte_strides, int64_t byte_offset, size_t itemsize);

/* LT_OK when the view lies inside a storage of storage_nbytes bytes, else
 * LT_ERANGE (or LT_EOVERFLOW / LT_EINVAL) with the byte ranges in the
 * message. Views are checked once, when they are created. */
lt_status lt_layout_check(int32_t ndim, const int64_t *shape, const int64_t *strides, int64_t offset,
                          size_t itemsize, size_t storage_nbytes);

/* 1 when the strides are the C-contiguous (row-major) strides of shape,
 * ignoring the strides of dimensions of extent 1; 1 for a view with no
 * elements (any strides describe it); 0 otherwise. Never fails: the caller
 * passes a valid shape (ndim entries each, NULL allowed for ndim 0).
 * Borrows both arrays. */
int lt_layout_is_contiguous(int32_t ndim, const int64_t *shape, const int64_t *strides);

/* 1 when a write through the view would store to one location twice: a
 * stride of 0 along an extent above 1 (torch's has_internal_overlap, the
 * cheap test it refuses writes by). 0 for a view with no elements, whatever
 * its strides, since nothing is written. Never fails; borrows both arrays. */
int lt_layout_has_internal_overlap(int32_t ndim, const int64_t *shape, const int64_t *strides);

/* Writes the row-major (C-contiguous) strides of shape, in elements, into
 * out_strides[0..ndim), as torch computes them:
 *   out_strides[i] = product of max(shape[j], 1) for j > i
 * (an extent-0 dimension counts as 1, so an empty tensor still gets distinct
 * strides). Fails with LT_EINVAL (ndim outside [0, LT_MAX_NDIM], a negative
 * extent, NULL shape) or LT_EOVERFLOW (a stride beyond int64). Borrows shape;
 * out_strides is the caller's (ndim entries; may be NULL for ndim 0). */
lt_status lt_layout_contiguous_strides(int64_t *out_strides, int32_t ndim, const int64_t *shape);

/* The sizes of a view()/reshape() of numel elements: shape may hold one -1,
 * which is resolved to numel / (product of the other sizes); out_shape gets
 * the result (it may be shape itself). Refusals are LT_EINVAL, with torch's
 * messages, checked in this order:
 *   "only one dimension can be inferred"              (two or more -1)
 *   "invalid shape dimension -3"                      (the smallest size, when < -1)
 *   "shape '[2, -1]' is invalid for input of size 7"  (the sizes, as a Python list,
 *                                                      do not multiply to numel)
 * and LT_EINVAL for ndim outside [0, LT_MAX_NDIM] or numel < 0. Borrows
 * shape; out_shape is the caller's (ndim entries). */
lt_status lt_layout_infer_shape(int64_t *out_shape, int32_t ndim, const int64_t *shape, int64_t numel);

/* Strides (in elements) that express new_shape over the same elements as
 * (old_shape, old_strides) without a copy: torch's computeStride, so
 * view() succeeds exactly when torch's does, with the same strides. The
 * caller has checked that both shapes hold the same number of elements
 * (lt_layout_infer_shape). Special cases, as torch:
 *   an empty tensor whose shape is unchanged keeps its strides;
 *   otherwise an empty or 0-d tensor gets lt_layout_contiguous_strides.
 * *out_viewable is 1 when the strides exist (written to out_strides[0..new_ndim)),
 * 0 when the view would need a copy: that is an answer, not an error
 * (reshape copies, view raises). Fails with LT_EINVAL (bad ndim or shapes,
 * NULL old_strides with old_ndim > 0) or LT_EOVERFLOW (old numel, or a stride
 * of the answer, beyond int64). Borrows the inputs; outputs are the caller's. */
lt_status lt_layout_view_strides(int64_t *out_strides, int *out_viewable, int32_t old_ndim, const int64_t *old_shape,
                                 const int64_t *old_strides, int32_t new_ndim, const int64_t *new_shape);

/* The shape that nshapes shapes broadcast to, as torch.broadcast_shapes:
 * shapes align at their last dimension, a missing or extent-1 dimension
 * stretches, any other pair of sizes must be equal. *out_ndim is the largest
 * ndims[s] (0 for no shapes); out_shape gets that many sizes and must hold
 * LT_MAX_NDIM. shapes[s] holds ndims[s] sizes (NULL allowed for 0). A
 * mismatch is LT_EINVAL with torch's message, naming shapes[0]'s size at
 * the same place from the end (1 where shapes[0] is shorter):
 *   "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"
 * Sizes are compared, not validated: checking them is the callers' part.
 * LT_EINVAL also for an ndims entry outside [0, LT_MAX_NDIM]. Borrows the
 * inputs; outputs are the caller's. */
lt_status lt_layout_broadcast_shapes(int64_t *out_shape, int32_t *out_ndim, int32_t nshapes, const int32_t *ndims,
                                     const int64_t *const *shapes);

/* The layout of a tensor made from existing ones (layout_order.c), torch's rules.
 *
 * lt_layout_is_non_overlapping_and_dense: 1 when some order of the dims is
 * row-major (dims of extent 1 ignored; every empty tensor counts), as torch's
 * is_non_overlapping_and_dense. Never fails; borrows both arrays.
 *
 * lt_layout_preserve_strides: the strides of empty_like/clone/to() with
 * preserve_format: a non-overlapping dense tensor's own strides; otherwise
 * row-major strides over its dims sorted by ascending stride (a zero stride
 * keeps its row-major place, equal strides put the smaller extent inside),
 * extents below 2 counting as 1 (torch's infer_dense_strides). out_strides
 * may be strides itself.
 *
 * lt_layout_result_strides: the strides of an elementwise result of the given
 * shape over noperands inputs (operand k: ndims[k] <= ndim dims that broadcast
 * to shape, shapes[k], strides[k] in elements; a 0-d operand such as a
 * Python scalar counts, as in torch). torch's TensorIterator: when every
 * operand has the result's exact shape, all contiguous gives row-major
 * strides and all dense with identical strides gives those strides; else the
 * dims are sorted innermost-first by the first operand whose (broadcast,
 * nonzero) strides differ, equal strides putting the smaller extent inside,
 * and the result is row-major over that order:
 *   out[perm[0]] = 1, out[perm[k]] = out[perm[k-1]] * shape[perm[k-1]]
 * (row-major order itself gives lt_layout_contiguous_strides). Differs from
 * torch in one case: 4-d operands that are all channels-last but not with
 * identical strides (torch's channels-last fast set-up) are sorted by the
 * general rule, which gives the same order except where extent-1 dims
 * carry odd strides.
 *
 * Both fail with LT_EINVAL (bad ndim or shape, NULL arrays, an operand that
 * does not broadcast to shape) or LT_EOVERFLOW (a stride beyond int64).
 * Borrow every input; out_strides (ndim entries) is the caller's. */
int lt_layout_is_non_overlapping_and_dense(int32_t ndim, const int64_t *shape, const int64_t *strides);
lt_status lt_layout_preserve_strides(int64_t *out_strides, int32_t ndim, const int64_t *shape, const int64_t *strides);
lt_status lt_layout_result_strides(int64_t *out_strides, int32_t ndim, const int64_t *shape, int32_t noperands,
                                   const int32_t *ndims, const int64_t *const *shapes,
                                   const int64_t *const *strides);

/* Views of part of a tensor (layout.c): the view rules of diagonal, select,
 * narrow, split and chunk, torch's, for pytensor's C fast paths and its
 * Python path alike. Shapes and strides are in elements, offsets are the
 * element offset from the storage's start; dims are already wrapped (0 <=
 * dim < ndim) and the callers raise torch's messages for user arguments
 * before calling. Each borrows its inputs; the outputs are the caller's,
 * written only on LT_OK, and may be the input arrays themselves.
 *
 * lt_layout_diagonal: ndim - 1 dims: the dims other than dim1 and dim2 in
 * order, then the diagonal, of length
 *   max(0, min(shape[dim1], shape[dim2] - diag_offset))   for diag_offset >= 0
 *   max(0, min(shape[dim1] + diag_offset, shape[dim2]))   otherwise
 * and stride strides[dim1] + strides[dim2]; *out_offset is offset plus
 * diag_offset * strides[dim2] (or -diag_offset * strides[dim1] for a negative
 * diag_offset) when the diagonal has elements, offset itself when it has
 * none. LT_EINVAL for ndim < 2, a dim outside [0, ndim), dim1 == dim2, a bad
 * shape or NULL strides; LT_EOVERFLOW when the diagonal's stride or its
 * start leaves int64. torch 2.13 refuses such a diagonal too (a
 * RuntimeError: (1, 1) strides (2^62, 2^62) has no diagonal stride), so the
 * refusal happens here, at the diagonal, never in a later call that reads
 * the stride.
 *
 * lt_layout_select: ndim - 1 dims, dim dropped; *out_offset = offset +
 * index * strides[dim]. LT_EINVAL for a bad shape, NULL strides or dim
 * outside [0, ndim) (so ndim 0); LT_ERANGE for index outside [0,
 * shape[dim]); LT_EOVERFLOW when the offset leaves int64 (a view with no
 * elements may carry such strides).
 *
 * lt_layout_narrow: ndim dims, shape[dim] replaced by length, the strides
 * unchanged (none are written); *out_offset = offset + start * strides[dim],
 * also for length 0. LT_EINVAL as lt_layout_select; LT_ERANGE unless 0 <=
 * start, 0 <= length and start + length <= shape[dim]; LT_EOVERFLOW when
 * the offset leaves int64.
 *
 * lt_layout_unfold: ndim + 1 dims: dim holds the windows, (shape[dim] -
 * size) / step + 1 of them, stride strides[dim] * step; the new last dim
 * walks a window, size elements of stride strides[dim]; the offset stays
 * (none is written). A 0-d view (dim 0) gives (size,) with stride 1, as
 * torch's. out_shape and out_strides hold ndim + 1 entries. LT_EINVAL as
 * lt_layout_select, for ndim already LT_MAX_NDIM, and unless 0 <= size <=
 * shape[dim] (1 for 0-d) and step > 0; LT_EOVERFLOW when the windows'
 * stride leaves int64 ("... does not fit in int64; use a smaller step").
 *
 * lt_layout_split_lengths: the pieces of split(split_size) along an extent
 * of size: *out_count = ceil(size / split_size) pieces (1 for size 0), each
 * *out_length (= split_size) long but the last, *out_last long (the rest,
 * 0 < last <= split_size, or 0 for size 0); the pieces start at 0,
 * split_size, 2 * split_size, ... LT_EINVAL for size < 0, split_size < 0,
 * or split_size 0 with size > 0.
 *
 * lt_layout_chunk_lengths: the pieces of chunk(chunks): split_lengths by
 * ceil(size / chunks), so at most chunks pieces (fewer where they would be
 * empty: size 5 in 4 chunks gives 3 of 2, 2, 1); size 0 gives chunks empty
 * pieces (*out_length == *out_last == 0). LT_EINVAL for size < 0 or chunks
 * <= 0. */
/* lt_layout_unsqueeze_strides (layout.c): the ndim + 1 strides of
 * unsqueeze(dim), 0 <= dim <= ndim, torch's inferUnsqueezeGeometry: the
 * strides of (shape, strides) with, at dim, the stride that steps over the
 * whole dimension it is put before, shape[dim] * strides[dim] (1 when dim ==
 * ndim). Fails with LT_EINVAL (bad ndim, shape or dim, ndim already
 * LT_MAX_NDIM, NULL strides) or LT_EOVERFLOW (that product beyond int64: an
 * empty view may carry such strides). out_strides (ndim + 1 entries) is the
 * caller's and may be strides itself; borrows the inputs.
 *
 * lt_layout_infer_dense_strides (layout_order.c): torch's
 * infer_dense_strides, the rule lt_layout_preserve_strides applies to a
 * layout that is not dense, applied to any layout: row-major strides over
 * the dims sorted by ascending stride (a zero stride keeps its row-major
 * place, equal strides put the smaller extent inside), extents below 2
 * counting as 1. torch's gather-family results with no elements take this
 * layout, whatever the input's. Fails as lt_layout_preserve_strides does;
 * out_strides may be strides itself. */
/* lt_layout_broadcast_strides (layout.c): the strides (in elements) an
 * operand of op_ndim <= ndim dims walks when broadcast to shape, torch's
 * expand: 0 for a missing (leading) dimension and for an extent 1 stretched
 * to more; every other dimension keeps its stride. Fails with LT_EINVAL (bad
 * shapes, op_ndim > ndim, an extent that is neither 1 nor the result's, NULL
 * op_strides). out_strides (ndim entries) is the caller's; borrows the inputs. */
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

/* ---------------------------------------------------------------- kernels */

/* Runtime tuning: the number of threads kernels may use (>= 1), default the
 * number of online CPUs, capped at 8. Large copies, casts and elementwise
 * jobs are split by outer dimension. Not thread-safe against running
 * kernels; set it at start-up. */
void lt_set_num_threads(int nthreads);
int lt_get_num_threads(void);

/* Copies (and converts) the ndim-dimensional view src into dst, element by
 * element: dst[i] = (dst_dtype) src[i]. Pointers are element 0 of each view;
 * strides are in elements and may be negative or zero (zero strides in src
 * broadcast). Conversions follow PyTorch: float->int truncates toward zero,
 * anything->bool is (x != 0), complex->real keeps the real part, float16 and
 * bfloat16 round to nearest even. When dst and src overlap, the result is as
 * if src had first been copied to a temporary. Fails with LT_EDTYPE or
 * LT_EINVAL; ndim 0 copies one element. Borrows both buffers. */
lt_status lt_copy(void *dst, const int64_t *dst_strides, lt_dtype dst_dtype, const void *src,
                  const int64_t *src_strides, lt_dtype src_dtype, int32_t ndim, const int64_t *shape);

/* Sets every element of the dst view to *value (one element of value_dtype,
 * converted to dst_dtype as lt_copy would). Borrows both. */
lt_status lt_fill(void *dst, const int64_t *dst_strides, lt_dtype dst_dtype, const void *value,
                  lt_dtype value_dtype, int32_t ndim, const int64_t *shape);

/* Writes the sequence start + i * step (i = 0 .. n-1) into the first n
 * elements of storage, as dtype, without any other allocation than a few
 * KiB of stack. start and step are one element each of value_dtype, the
 * type the arithmetic is done in:
 *   LT_INT64    exact; refused with LT_EOVERFLOW when the last value
 *               start + (n-1) * step does not fit int64;
 *   LT_UINT64   modulo 2^64 (step as two's complement bits, so it may
 *               count down);
 *   LT_FLOAT64  each value is start + (double)i * step, rounded after the
 *               product and after the sum (never fused).
 * Each value is then converted to dtype as lt_copy converts. The storage's
 * write version is bumped. Fails with LT_EREADONLY (read-only storage),
 * LT_EDEVICE (memory not on the host), LT_ERANGE (n elements do not fit
 * the storage), LT_EDTYPE or LT_EINVAL. Thread-safe for distinct storages.
 * Borrows storage, start and step. */
lt_status lt_fill_arange(lt_storage *storage, lt_dtype dtype, int64_t n, const void *start, const void *step,
                         lt_dtype value_dtype);

/* Writes n values evenly spaced from start to end inclusive into the first
 * n elements of storage, as dtype: with step = (end - start) / (n - 1),
 * value i is start + i * step for i < n/2 and end - (n-1-i) * step after,
 * so both ends are exact (torch's rule); n == 1 gives start. start and end
 * are one element each of value_dtype, LT_FLOAT64 or LT_COMPLEX128 (whose
 * real and imaginary parts are spaced independently), computed in double.
 * Values convert to dtype as lt_copy converts, except that real values reach
 * an integer dtype through int64 (truncated toward zero, then the low bits
 * kept), whatever the dtype's width. Bumps the write version; fails and
 * borrows as lt_fill_arange does. */
lt_status lt_fill_linspace(lt_storage *storage, lt_dtype dtype, int64_t n, const void *start, const void *end,
                           lt_dtype value_dtype);

typedef enum lt_binop {
    LT_OP_ADD = 0,
    LT_OP_SUB,
    LT_OP_MUL,
    LT_OP_DIV, /* true division; integer dtypes are refused (LT_EDTYPE) */
    LT_OP_EQ,  /* comparisons write LT_BOOL */
    LT_OP_NE,
    LT_OP_LT,
    LT_OP_LE,
    LT_OP_GT,
    LT_OP_GE
} lt_binop;

/* out = a op b, elementwise over shape. a, b and (for arithmetic) out are
 * all of dtype; comparisons write LT_BOOL into out. Broadcasting is
 * expressed with zero strides in a and b. Integer arithmetic wraps around
 * (two's complement); bool ADD is logical or, MUL logical and, SUB is
 * refused; float16/bfloat16 compute in float32 and round once; complex
 * supports ADD SUB MUL DIV EQ NE only. out may alias a or b exactly
 * (same pointer and strides), as in a += b. Borrows all buffers. */
lt_status lt_binary(lt_binop op, lt_dtype dtype, int32_t ndim, const int64_t *shape, void *out,
                    const int64_t *out_strides, const void *a, const int64_t *a_strides, const void *b,
                    const int64_t *b_strides);

/* *out_equal = 1 when every element of view a equals the one of view b at
 * the same index (both ndim-dimensional of shape, of dtype, strides in
 * elements, zero allowed), else 0: torch.equal after promotion. Equality is
 * lt_binary's EQ (NaN differs from itself, -0 equals 0, complex compares
 * both parts), and the comparison stops within 4096 elements of the first
 * difference. Fails as lt_binary does for EQ (LT_EDTYPE for the float8s and
 * float4). Borrows all buffers. */
lt_status lt_equal(int *out_equal, lt_dtype dtype, int32_t ndim, const int64_t *shape, const void *a,
                   const int64_t *a_strides, const void *b, const int64_t *b_strides);

/* Sums the src view into the dst view: dst has the same ndim, with stride 0
 * on every reduced dimension, and is overwritten (not accumulated into).
 * dst_dtype is the accumulation and result type: int64 for bool and integer
 * input, the input type for floating and complex input (float16 and bfloat16
 * accumulate in float32 internally). Floating sums are pairwise, so the
 * rounding error grows as log(n). Borrows both buffers. */
lt_status lt_sum(void *dst, const int64_t *dst_strides, lt_dtype dst_dtype, const void *src,
                 const int64_t *src_strides, lt_dtype src_dtype, int32_t ndim, const int64_t *shape);

/* all() and any() (truth.c; owned by the per-call-cost work, issue 27):
 * dst[j] = 1 when every (want_all) or some (!want_all) element of src
 * reduced into j is nonzero, else 0. As lt_sum: dst has the same ndim as
 * src, with stride 0 on every reduced dimension, and is overwritten.
 * "Nonzero" is the cast to bool (NaN is true, -0.0 false, complex tests both
 * parts). dst_dtype is LT_BOOL or LT_UINT8 (torch's result for uint8 input);
 * an empty reduction gives want_all. A reduction to one element stops at the
 * first element that decides it. Fails with LT_EDTYPE (float4_e2m1fn_x2, or
 * another dst dtype), LT_EINVAL (bad views, or dst overlapping src).
 * Borrows both buffers. */
lt_status lt_all_any(void *dst, const int64_t *dst_strides, lt_dtype dst_dtype, const void *src,
                     const int64_t *src_strides, lt_dtype src_dtype, int32_t ndim, const int64_t *shape,
                     int want_all);

/* ---------------------------------------------------------------- gather and scatter (gather.c) */

/* Advanced indexing's kernels. They move elements of one dtype (the caller
 * converts first); strides and offsets are in elements, and every pointer is
 * element 0 of its view. None allocates. Borrows every buffer.
 *
 * lt_mask_count: *out = the number of nonzero bytes of the bool view mask.
 * Fails with LT_EINVAL for a bad shape or NULL out. */
lt_status lt_mask_count(int64_t *out, const void *mask, const int64_t *mask_strides, int32_t ndim,
                        const int64_t *shape);

/* For the k-th nonzero byte of mask (row-major order), at coordinates
 * i[0..ndim), writes
 *   out[k * row_stride + c * col_stride] = sum_d i[d] * weights[c * ndim + d]
 * for each column c < ncols (strides in elements): identity weights give
 * nonzero()'s coordinates, ncols 1 with a view's strides gives element
 * offsets. count is what lt_mask_count returned; LT_EINVAL when the mask
 * holds another number (it changed in between), so out (a count x ncols
 * view) is never overrun. */
lt_status lt_mask_positions(int64_t *out, int64_t row_stride, int64_t col_stride, int64_t count, int32_t ncols,
                            const int64_t *weights, const void *mask, const int64_t *mask_strides, int32_t ndim,
                            const int64_t *shape);

/* x[mask] with a mask over every dimension of the view src: the count
 * elements under nonzero mask bytes, row-major, into the dense dst
 * (count elements). lt_mask_scatter is the write x[mask] = v: the k-th
 * selected element of the view dst gets src[k * src_stride] (src_stride 0
 * writes one value everywhere). Runs of eight false bytes are skipped at a
 * time where the mask is dense along its last dimension. LT_EINVAL when the
 * mask does not hold count nonzero bytes. */
lt_status lt_mask_gather(void *dst, const void *src, const int64_t *src_strides, lt_dtype dtype, const void *mask,
                         const int64_t *mask_strides, int32_t ndim, const int64_t *shape, int64_t count);
lt_status lt_mask_scatter(void *dst, const int64_t *dst_strides, const void *src, int64_t src_stride, lt_dtype dtype,
                          const void *mask, const int64_t *mask_strides, int32_t ndim, const int64_t *shape,
                          int64_t count);

/* Element offsets of nidx int64 index tensors broadcast to shape (strides
 * index_strides[j * ndim + d], 0 where broadcast), one per position,
 * row-major into out (numel(shape) entries):
 *   out[k] = sum_j wrap(index[j][k]) * dim_strides[j],  wrap(v) = v < 0 ? v + dim_sizes[j] : v
 * An index outside [-dim_sizes[j], dim_sizes[j]) (outside [0, dim_sizes[j])
 * when wrap_negative is 0, as torch's gather and index_select) fails with
 * LT_ERANGE and torch's sentence, naming dim_ids[j]: "index 5 is out of
 * bounds for dimension 0 with size 5". Every offset is checked before any is
 * used. */
lt_status lt_index_offsets(int64_t *out, int32_t nidx, const int64_t *const *index, const int64_t *index_strides,
                           const int64_t *dim_sizes, const int64_t *dim_strides, const int64_t *dim_ids,
                           int wrap_negative, int32_t ndim, const int64_t *shape);

/* Over shape (ndim dims), element i of the indexed view is at
 *   base + (strides . i + offsets[offset_strides . i]) * itemsize
 * (the offsets from lt_index_offsets or lt_mask_positions; strides 0 on the
 * dimensions the offsets cover). lt_index_gather copies those elements into
 * the view dst; lt_index_scatter writes the view src into them, or adds it
 * when accumulate is nonzero (torch's index_put_(accumulate=True): every
 * repeated index adds; integers wrap, bool ors, float16/bfloat16 add in
 * float32; LT_EDTYPE for the float8s and float4). Without accumulate a
 * repeated index keeps the last write. The caller guarantees the offsets are
 * in range and that src does not overlap dst. */
lt_status lt_index_gather(void *dst, const int64_t *dst_strides, const void *src, const int64_t *src_strides,
                          const int64_t *offsets, const int64_t *offset_strides, lt_dtype dtype, int32_t ndim,
                          const int64_t *shape);
lt_status lt_index_scatter(void *dst, const int64_t *dst_strides, const int64_t *offsets,
                           const int64_t *offset_strides, const void *src, const int64_t *src_strides, lt_dtype dtype,
                           int accumulate, int32_t ndim, const int64_t *shape);

/* The gather of one index tensor in a single pass (no offsets array): over
 * shape, element i of dst is read at
 *   src + (src_strides . i + wrap(index[index_strides . i]) * dim_stride) * itemsize
 * (src_strides 0 on the indexed dimensions, index_strides 0 elsewhere). Each
 * index is checked as it is read, as lt_index_offsets checks it (LT_ERANGE
 * naming dim_id; wrap_negative as there), so on failure dst holds part of
 * the result: meant for a new output that is then dropped. */
lt_status lt_index_take(void *dst, const int64_t *dst_strides, const void *src, const int64_t *src_strides,
                        const int64_t *index, const int64_t *index_strides, int64_t dim_size, int64_t dim_stride,
                        int64_t dim_id, int wrap_negative, lt_dtype dtype, int32_t ndim, const int64_t *shape);

/* dst[i] = cond[i] ? a[i] : b[i] over shape; cond is a bool view, a and b
 * views of dtype (zero strides broadcast). dst must not overlap a, b or cond. */
lt_status lt_where(void *dst, const int64_t *dst_strides, const void *cond, const int64_t *cond_strides,
                   const void *a, const int64_t *a_strides, const void *b, const int64_t *b_strides, lt_dtype dtype,
                   int32_t ndim, const int64_t *shape);

/* ---------------------------------------------------------------- dlpack */

/* Export flags for lt_dlpack_export. */
#define LT_EXPORT_VERSIONED 0x1u /* produce DLManagedTensorVersioned (else legacy DLManagedTensor) */
#define LT_EXPORT_COPIED 0x2u    /* set DLPACK_FLAG_BITMASK_IS_COPIED */

/* Exports a view of storage as one self-contained allocation holding the
 * managed tensor, its shape and its strides. The managed tensor holds a
 * reference to storage, dropped by its deleter. Legacy exports of read-only
 * storage are refused (LT_EDLPACK), because DLManagedTensor cannot say
 * read-only; versioned exports set DLPACK_FLAG_BITMASK_READ_ONLY. A view
 * with no elements touches no bytes, so its offset is not checked and it is
 * exported pointing at the storage's first byte (a slice such as [5:] of a
 * 5 x 0 tensor has an offset past its empty storage's end).
 * On success *out is a DLManagedTensorVersioned* (flags has
 * LT_EXPORT_VERSIONED) or a DLManagedTensor*; the caller owns it and must
 * call its deleter exactly once (or hand it to a consumer that will). */
lt_status lt_dlpack_export(void **out, lt_storage *storage, lt_dtype dtype, int32_t ndim,
                           const int64_t *shape, const int64_t *strides, int64_t offset, unsigned flags);

/* Imports a managed tensor: versioned != 0 means managed is a
 * DLManagedTensorVersioned*, else a DLManagedTensor*. Validates version,
 * flags, dtype, ndim, shape and strides first; on failure nothing is taken
 * (the caller still owns managed) and LT_EDLPACK is returned.
 * On success takes ownership of managed: the new storage's deleter calls
 * the producer's deleter exactly once. The storage spans every byte the
 * view can reach; the view is returned in *out_* with strides in elements
 * (computed for a compact row-major tensor when the producer gave none) and
 * *out_offset in elements from the storage start. out_shape and
 * out_strides must hold LT_MAX_NDIM entries.
 * Returns a new reference in *out (release with lt_storage_release). */
lt_status lt_dlpack_import(lt_storage **out, lt_dtype *out_dtype, int32_t *out_ndim, int64_t *out_shape,
                           int64_t *out_strides, int64_t *out_offset, void *managed, int versioned);

/* ---------------------------------------------------------------- random */

/* A random number generator: torch's CPU generator (mt19937, its state
 * layout, its sampling rules), so that the same seed gives torch 2.13's
 * numbers (see random.c for what each sampler does). Every call on a
 * generator is serialised by one internal lock, so generators may be used
 * from any thread; a process that forks while a thread draws gets a child
 * whose lock is free. Draws happen on the calling thread, so results never
 * depend on lt_set_num_threads. */
typedef struct lt_generator lt_generator;

/* Bytes of an exported state: torch's CPUGeneratorImplState, byte for byte. */
#define LT_GENERATOR_STATE_NBYTES 5056

/* A new generator seeded with seed (only its low 32 bits seed the engine;
 * initial_seed returns all 64). Returns a new generator in *out, owned by
 * the caller: free it with lt_generator_free. Fails with LT_ENOMEM. */
lt_status lt_generator_new(lt_generator **out, uint64_t seed);

/* Frees a generator; NULL is a no-op. Takes ownership. */
void lt_generator_free(lt_generator *gen);

/* Reseeds: the stream restarts and the cached normal sample is dropped. Borrows gen. */
void lt_generator_manual_seed(lt_generator *gen, uint64_t seed);

/* The seed last given to lt_generator_new or lt_generator_manual_seed (or
 * carried by a state set with lt_generator_set_state). Borrows gen. */
uint64_t lt_generator_initial_seed(const lt_generator *gen);

/* Writes the whole state (engine words, position, cached normal) into out,
 * which holds nbytes == LT_GENERATOR_STATE_NBYTES bytes, in torch's layout.
 * Fails with LT_EINVAL for another size. Borrows both. */
lt_status lt_generator_get_state(const lt_generator *gen, uint8_t *out, size_t nbytes);

/* Replaces gen's state with one from lt_generator_get_state (or torch's
 * get_rng_state). Fails with LT_EINVAL, changing nothing, for another size
 * or an impossible position. Borrows both. */
lt_status lt_generator_set_state(lt_generator *gen, const uint8_t *state, size_t nbytes);

/* The fills below write n elements of dtype starting at element offset of
 * storage (contiguous), bump its write version, and fail with LT_EREADONLY,
 * LT_EDEVICE, LT_ERANGE (the elements do not fit), LT_EDTYPE or LT_EINVAL.
 * Complex dtypes are filled as 2n reals. Borrow gen and storage. */

/* Uniform samples in [from, to): k / 2^d for the dtype's d significant bits
 * (11 float16, 8 bfloat16, 24 float32, 53 float64), times (to - from), plus
 * from; with from 0 and to 1 every value is below 1. Floating dtypes only. */
lt_status lt_random_uniform(lt_generator *gen, lt_storage *storage, int64_t offset, lt_dtype dtype, int64_t n,
                            double from, double to);

/* Normal samples of mean and std (std >= 0; complex parts get std/sqrt(2)).
 * contiguous != 0 says the n elements are the whole tensor in order, and
 * n >= 16 then uses torch's 16-element Box-Muller blocks; otherwise each
 * sample is one half of a double Box-Muller pair, the other half cached in
 * the generator. Floating dtypes only. */
lt_status lt_random_normal(lt_generator *gen, lt_storage *storage, int64_t offset, lt_dtype dtype, int64_t n,
                           double mean, double std, int contiguous);

/* Integers low + (draw mod range), range >= 1, as int64 converted to dtype
 * (any real dtype); the draw is 64-bit when range >= 2^28, else 32-bit. */
lt_status lt_random_int(lt_generator *gen, lt_storage *storage, int64_t offset, lt_dtype dtype, int64_t n,
                        uint64_t range, int64_t low);

/* A random permutation of 0 .. n-1 (Fisher-Yates), in any real dtype but bool. */
lt_status lt_random_perm(lt_generator *gen, lt_storage *storage, int64_t offset, lt_dtype dtype, int64_t n);

/* ---------------------------------------------------------------- complex parts (cast.c) */

/* dst[i] = src[i] with the sign of its real part flipped when negate_real
 * and of its imaginary part when negate_imag, for n dense elements of
 * complex64 or complex128 (torch's conj() and neg() of the lazy bits: the
 * sign bit flips, so 0 becomes -0, as torch's vectorized conj does). dst
 * may be src (in place); otherwise they must not overlap. LT_EDTYPE for any
 * other dtype, LT_EINVAL for a NULL pointer or a negative n. Borrows both. */
lt_status lt_complex_negate_parts(void *dst, const void *src, int64_t n, lt_dtype dtype, int negate_real,
                                  int negate_imag);

#ifdef __cplusplus
}
#endif
#endif /* LIBTENSOR_H */
