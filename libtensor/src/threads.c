/* threads.c: being written. */
#include "internal.h"
