/* common.h — what every module of the library has: the public header and two macros. */
#ifndef WM_UTIL_COMMON_H
#define WM_UTIL_COMMON_H

#include <stdarg.h>
/* The public header without its umbrella of module headers, which is cmd/'s: a module includes the headers it uses. */
#define WM_LIBRARY_MODULE 1
#include "wheelmatrix.h"

#define WM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define WM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define WM_PRINTF(f, a)
#endif

#endif
