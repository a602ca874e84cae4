/* base58.h: Bitcoin-alphabet base58, base58check and the Tezos addresses the inputs file
 * names (tz1..tz4 implicit accounts, KT1 contracts, sr1 smart rollups).
 *
 * base58check text encodes `prefix ‖ data ‖ checksum`, where the checksum is the first 4 bytes
 * of SHA-256(SHA-256(prefix ‖ data)). Tezos picks each prefix so that every address of a kind
 * starts with the same characters ("tz1", "KT1", "sr1"). Nothing here allocates; every input
 * is bounded by WD_BASE58_MAX_BYTES, so all the work is bounded too. Decoding errors are
 * WD_ERR_USAGE with err->offset = the character index in the text at fault (0 when the
 * whole text is). */
#ifndef WD_VM_BASE58_H
#define WD_VM_BASE58_H

#include "base/error.h"

/* Largest byte string encoded or decoded (payload with prefix and checksum). */
#define WD_BASE58_MAX_BYTES 128u
/* Room for the text of any address, with its NUL. */
#define WD_ADDRESS_TEXT_SIZE 40u
#define WD_ADDRESS_HASH_SIZE 20u

/* Writes the base58 text of data[0..size) and a NUL to out; returns the text's length, or 0
 * when size > WD_BASE58_MAX_BYTES or out_size is too small (out is then an empty string if
 * out_size > 0). */
size_t wd_base58_encode(const uint8_t *data, size_t size, char *out, size_t out_size);

/* Decodes base58 text[0..len) into out (at most cap bytes); *out_size = bytes written.
 * Errors: a character outside the alphabet (offset = its index), text longer than allowed
 * or a result larger than cap. */
WD_NODISCARD wd_status wd_base58_decode(const char *text, size_t len, uint8_t *out, size_t cap,
                                        size_t *out_size, wd_error *err);

/* base58check: like the above with the 4-byte double-SHA-256 checksum appended on encode and
 * verified and stripped on decode ("bad checksum"). */
size_t wd_base58_encode_check(const uint8_t *data, size_t size, char *out, size_t out_size);
WD_NODISCARD wd_status wd_base58_decode_check(const char *text, size_t len, uint8_t *out,
                                              size_t cap, size_t *out_size, wd_error *err);

typedef enum wd_address_kind {
    WD_ADDR_TZ1 = 0, /* ed25519 public key hash; the source tag byte is the kind itself */
    WD_ADDR_TZ2,     /* secp256k1 */
    WD_ADDR_TZ3,     /* p256 */
    WD_ADDR_TZ4,     /* bls12-381 */
    WD_ADDR_KT1,     /* originated contract */
    WD_ADDR_SR1,     /* smart rollup */
    WD_ADDR_KIND_COUNT
} wd_address_kind;

#define WD_ADDR_BIT(kind) (1u << (kind))
#define WD_ADDR_ANY_IMPLICIT                                                                       \
    (WD_ADDR_BIT(WD_ADDR_TZ1) | WD_ADDR_BIT(WD_ADDR_TZ2) | WD_ADDR_BIT(WD_ADDR_TZ3) |              \
     WD_ADDR_BIT(WD_ADDR_TZ4))

/* "tz1", "KT1", ... */
const char *wd_base58_address_kind_name(wd_address_kind kind);

/* Decodes a base58check address whose kind is in `allowed` (a mask of WD_ADDR_BIT) into
 * *kind and its 20-byte hash. Errors name what was wrong: a bad character (offset = its
 * index), a bad checksum, an unknown prefix or length, or a kind not allowed ("expected a
 * KT1 address"). */
WD_NODISCARD wd_status wd_base58_decode_address(const char *text, size_t len, unsigned allowed,
                                                wd_address_kind *kind,
                                                uint8_t hash[WD_ADDRESS_HASH_SIZE], wd_error *err);

/* Writes the address text (NUL-terminated) to out; returns its length. */
size_t wd_base58_encode_address(wd_address_kind kind, const uint8_t hash[WD_ADDRESS_HASH_SIZE],
                                char out[WD_ADDRESS_TEXT_SIZE]);

#endif
