/* SHA-256 (FIPS 180-4) of one short message, for the seeded deal. */
#ifndef TEXAS42_SHA256_H
#define TEXAS42_SHA256_H

#include <stddef.h>
#include <stdint.h>

int t42_sha_extensions(int wanted); /* declared for users in texas42.h */
/* The digest as its eight big-endian 32-bit words (the words the deal's stream reads). */
void t42_sha256_words(const uint8_t *message, size_t length, uint32_t words[8]);
/* Two messages at once, their digests' words one after the other (faster on the SHA
 * extensions when both are at most 55 bytes). */
void t42_sha256_pair_words(const uint8_t *first, size_t first_length, const uint8_t *second,
                           size_t second_length, uint32_t words[16]);

#endif
