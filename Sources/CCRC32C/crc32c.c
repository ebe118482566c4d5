// CRC-32C with the processor's own instruction, for the checksum of every record and block (EventLogKit's
// CRC32C). The instruction is used only where the processor has it: on x86-64 the function is compiled for SSE 4.2
// and called after CPUID says the processor has it; on ARM64 only when the target has the CRC extension. Anywhere
// else `ccrc32c_hardware_available` answers 0 and the caller computes the checksum in software.

#include "CCRC32C.h"

#if defined(__x86_64__)
#include <cpuid.h>

#define CRC_TARGET __attribute__((target("sse4.2")))
#define CRC_WORD(crc, word) __builtin_ia32_crc32di((crc), (word))
#define CRC_BYTE(crc, byte) __builtin_ia32_crc32qi((crc), (byte))

int ccrc32c_hardware_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_SSE4_2) != 0;
}

#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>

#define CRC_TARGET
#define CRC_WORD(crc, word) __crc32cd((uint32_t)(crc), (word))
#define CRC_BYTE(crc, byte) __crc32cb((crc), (byte))

int ccrc32c_hardware_available(void) { return 1; }

#endif

#if defined(CRC_WORD)

CRC_TARGET
uint32_t ccrc32c_update(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    uint64_t wide = crc;
    while (count >= 8) {
        uint64_t word;
        __builtin_memcpy(&word, p, 8);  // an unaligned load
        wide = CRC_WORD(wide, word);
        p += 8;
        count -= 8;
    }
    crc = (uint32_t)wide;
    while (count > 0) {
        crc = CRC_BYTE(crc, *p);
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
