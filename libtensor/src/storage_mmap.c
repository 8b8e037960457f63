/* storage_mmap.c: being written. */
#include "internal.h"
