// CRC-32C with the processor's own instruction, for the checksum of every record and block (EventLogKit's
// CRC32C). The instruction is used only where the processor has it: on x86-64 a function compiled for SSE 4.2 is
// called after CPUID says the processor has it; on ARM64 only when the target has the CRC extension. Anywhere
// else `ccrc32c_hardware_available` answers 0 and the caller computes the checksum in software.

#include "CCRC32C.h"

#if defined(__x86_64__)
#include <cpuid.h>

int ccrc32c_hardware_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_SSE4_2) != 0;
}

__attribute__((target("sse4.2")))
uint32_t ccrc32c_update(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    uint64_t wide = crc;
    while (count >= 8) {
        uint64_t word;
        __builtin_memcpy(&word, p, 8);  // an unaligned load
        wide = __builtin_ia32_crc32di(wide, word);
        p += 8;
        count -= 8;
    }
    crc = (uint32_t)wide;
    while (count > 0) {
        crc = __builtin_ia32_crc32qi(crc, *p);
        p += 1;
        count -= 1;
    }
    return crc;
}

#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>

int ccrc32c_hardware_available(void) { return 1; }

uint32_t ccrc32c_update(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    while (count >= 8) {
        uint64_t word;
        __builtin_memcpy(&word, p, 8);  // an unaligned load
        crc = __crc32cd(crc, word);
        p += 8;
        count -= 8;
    }
    while (count > 0) {
        crc = __crc32cb(crc, *p);
        p += 1;
        count -= 1;
    }
    return crc;
}

#else

int ccrc32c_hardware_available(void) { return 0; }

uint32_t ccrc32c_update(uint32_t crc, const void *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;
}

#endif
