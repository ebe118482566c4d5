#ifndef CCRC32C_H
#define CCRC32C_H

#include <stddef.h>
#include <stdint.h>

/// Whether this processor computes CRC-32C in hardware (SSE 4.2 on x86-64, the CRC extension on ARM64), so that
/// `ccrc32c_update` may be called.
int ccrc32c_hardware_available(void);

/// Continues the CRC-32C register `crc` (not inverted: the caller starts from 0xFFFFFFFF and inverts at the end)
/// over `count` bytes at `bytes`, in hardware. Only when `ccrc32c_hardware_available()` says so.
uint32_t ccrc32c_update(uint32_t crc, const void *bytes, size_t count);

#endif
