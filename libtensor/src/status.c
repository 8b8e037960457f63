/* status.c: status names and messages from one X-macro list, and the
 * thread-local detail message behind lt_last_error(). */
#include <stdarg.h>

#include "internal.h"

/* One buffer per thread: messages from one thread never clobber another's.
 * 2 KiB holds the longest message: a shape of LT_MAX_NDIM twenty-digit
 * sizes, as lt_layout_infer_shape quotes it. */
static _Thread_local char last_error[2048];

const char *lt_status_name(lt_status status)
{
    switch (status) {
#define LT__NAME_CASE(name, value, msg) \
    case LT_##name:                     \
        return "LT_" #name;
        LT_STATUS_MAP(LT__NAME_CASE)
#undef LT__NAME_CASE
    }
    return "LT_UNKNOWN";
}

const char *lt_strerror(lt_status status)
{
    switch (status) {
#define LT__MSG_CASE(name, value, msg) \
    case LT_##name:                    \
        return msg;
        LT_STATUS_MAP(LT__MSG_CASE)
#undef LT__MSG_CASE
    }
    return "unknown status";
}

const char *lt_last_error(void) { return last_error; }

lt_status lt__fail(lt_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}
