/* SHA-256 (FIPS 180-4) of one short message, for the seeded deal. */
#ifndef TEXAS42_SHA256_H
#define TEXAS42_SHA256_H

#include <stddef.h>
#include <stdint.h>

void t42_sha256(const uint8_t *message, size_t length, uint8_t digest[32]);
int t42_sha_extensions(int wanted);
/* Two messages at once (faster on the SHA extensions when both are at most 55 bytes). */
void t42_sha256_pair(const uint8_t *first, size_t first_length, const uint8_t *second,
                     size_t second_length, uint8_t first_digest[32], uint8_t second_digest[32]); /* declared for users in texas42.h */

#endif
