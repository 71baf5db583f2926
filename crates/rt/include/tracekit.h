/*
 * tracekit.h — C API of the tracekit native runtime (libtracekit_rt).
 *
 * Functions compiled with -finstrument-functions are traced automatically
 * through __cyg_profile_func_enter/exit. The calls below record explicit
 * events. Strings must be NUL-terminated; they are copied into the trace.
 * Everything is a no-op unless the program runs under `tracekit record`
 * (or with TRACEKIT_DIR set).
 *
 * Link with -ltracekit_rt, or preload libtracekit_rt.so. Define
 * TRACEKIT_WEAK before including this header to declare the functions weak:
 * the program then links without the library and `tracekit record`
 * provides them at run time (test `tracekit_enabled` for NULL before use
 * when the program may also run on its own).
 */
#ifndef TRACEKIT_H
#define TRACEKIT_H

#include <stdint.h>

#ifdef TRACEKIT_WEAK
#define TRACEKIT_API __attribute__((weak))
#else
#define TRACEKIT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Hooks called by code built with -finstrument-functions. */
TRACEKIT_API void __cyg_profile_func_enter(void *func, void *call_site);
TRACEKIT_API void __cyg_profile_func_exit(void *func, void *call_site);

/* An object of class_name was created / destroyed; object is its id (address). */
TRACEKIT_API void tracekit_object_created(const char *class_name, const void *object);
TRACEKIT_API void tracekit_object_destroyed(const char *class_name, const void *object);

/* The body of interface.operation was entered / left on object. */
TRACEKIT_API void tracekit_operation_enter(const void *object, const char *class_name,
                              const char *interface_name, const char *operation);
TRACEKIT_API void tracekit_operation_leave(const void *object, const char *class_name,
                              const char *interface_name, const char *operation);

/* A client-side proxy operation calling into process remote_pid was entered.
 * synchronous != 0: the caller blocks until the matching
 * tracekit_operation_leave on the same object and operation. */
TRACEKIT_API void tracekit_proxy_enter(const void *object, const char *class_name,
                          const char *interface_name, const char *operation,
                          uint32_t remote_pid, int synchronous);

/* A server-side stub operation was entered on behalf of sender_pid (0: unknown). */
TRACEKIT_API void tracekit_stub_enter(const void *object, const char *class_name,
                         const char *interface_name, const char *operation,
                         uint32_t sender_pid);

/* An instant marker, such as a big-red-button press. */
TRACEKIT_API void tracekit_marker(const char *name);

/* Typed context samples, lined up with the calls on the same clock. */
TRACEKIT_API void tracekit_context_int(const char *label, int64_t value);
TRACEKIT_API void tracekit_context_double(const char *label, double value);
TRACEKIT_API void tracekit_context_text(const char *label, const char *text);

/* 1 when tracing is on in this process. */
TRACEKIT_API int tracekit_enabled(void);

#ifdef __cplusplus
}
#endif

#endif /* TRACEKIT_H */
