/* sanitizers.h: whether this build runs under AddressSanitizer
 * (PMCTOP_ASAN) or ThreadSanitizer (PMCTOP_TSAN), 1 or 0, for the few
 * places that keep memory for reuse or leave it to the kernel at exit
 * and do otherwise there, so that the sanitizers still see every free.
 * GCC says so with __SANITIZE_ADDRESS__ and __SANITIZE_THREAD__, clang
 * with __has_feature. */
#ifndef PMCTOP_SANITIZERS_H
#define PMCTOP_SANITIZERS_H

#if defined(__SANITIZE_ADDRESS__)
#define PMCTOP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PMCTOP_ASAN 1
#endif
#endif
#ifndef PMCTOP_ASAN
#define PMCTOP_ASAN 0
#endif

#if defined(__SANITIZE_THREAD__)
#define PMCTOP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PMCTOP_TSAN 1
#endif
#endif
#ifndef PMCTOP_TSAN
#define PMCTOP_TSAN 0
#endif

#endif
