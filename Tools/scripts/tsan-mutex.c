// Shows ThreadSanitizer the contended half of Synchronization.Mutex on Linux, for Tools/scripts/tsan.sh.
//
// Mutex's uncontended lock and unlock are atomics inlined into our code, which the sanitizer sees. When they fail,
// the inlined code calls the standard library's `_lockSlow`, `_tryLockSlow` or `_unlockSlow`, which spin on the
// lock word and park on a priority-inheriting futex, where the kernel hands the lock over: none of that is
// instrumented, so every contended `withLock` looks like a race on what the lock guards (a program whose threads
// only append to a Mutex-guarded array reports some). Preloaded, this stands in for the three functions, calls the
// library's own, and records the handover on the lock word's address, where the inlined atomics synchronize too: a
// release before a slow unlock, an acquire after a slow lock that took the lock. In a process built without the
// sanitizer the hooks are absent and the functions only forward.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>

extern void __tsan_acquire(void *address) __attribute__((weak));
extern void __tsan_release(void *address) __attribute__((weak));

// The functions take the handle as Swift's `self` (the handle is the lock word) and Swift's calling convention.
#define SWIFT __attribute__((swiftcall))
#define SELF __attribute__((swift_context))
typedef SWIFT void LockSlow(uint32_t thread, void *SELF handle);
typedef SWIFT bool TryLockSlow(void *SELF handle);
typedef SWIFT void UnlockSlow(void *SELF handle);

static void *library(const char *name) { return dlsym(RTLD_NEXT, name); }

SWIFT void $s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF(uint32_t thread, void *SELF handle) {
    static LockSlow *original;
    if (!original) original = (LockSlow *)library("$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF");
    original(thread, handle);
    if (__tsan_acquire) __tsan_acquire(handle);
}

SWIFT bool $s15Synchronization12_MutexHandleV12_tryLockSlowSbyF(void *SELF handle) {
    static TryLockSlow *original;
    if (!original) original = (TryLockSlow *)library("$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF");
    bool locked = original(handle);
    if (locked && __tsan_acquire) __tsan_acquire(handle);
    return locked;
}

SWIFT void $s15Synchronization12_MutexHandleV11_unlockSlowyyF(void *SELF handle) {
    static UnlockSlow *original;
    if (!original) original = (UnlockSlow *)library("$s15Synchronization12_MutexHandleV11_unlockSlowyyF");
    if (__tsan_release) __tsan_release(handle);
    original(handle);
}
