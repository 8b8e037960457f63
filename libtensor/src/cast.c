/* cast.c: being written. */
#include "internal.h"
