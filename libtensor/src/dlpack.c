/* dlpack.c: being written. */
#include "internal.h"
