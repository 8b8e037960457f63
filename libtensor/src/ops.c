/* ops.c: being written. */
#include "internal.h"
