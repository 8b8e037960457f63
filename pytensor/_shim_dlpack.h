/* _shim_dlpack.h: DLPack capsule functions of the shim (included once by
 * _shim.c). Filled in by the DLPack work; empty until then. */
#define SHIM_DLPACK_METHODS
