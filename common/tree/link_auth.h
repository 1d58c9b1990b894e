// link_auth.h: who may serve whom on the data channel, proven with keys
// the core hands out over the MAD channel (doc/security.md, "The tree's
// data channel").
//
// Why: the data channel is TCP on an unprivileged port. Any local user on
// a member's host may bind that port while the member restarts, and its
// children would take whatever it serves. MADs, unlike sockets, need root
// on the sending host (the umad device), so the core can hand keys to the
// members themselves and to nobody else:
//
//   - The core draws a secret at start (never sent anywhere).
//   - The link key of a parent P and a child C holding join token T is
//       HMAC-SHA256(secret, "ibssa link" | P | C | T), first 16 bytes.
//   - The child learns it for its parent, its backup and the core in its
//     join answer; the parent learns it in the TokenCheck answer, which the
//     core gives only to the assigned parent or backup asking from its own
//     LID. A restarted core draws a new secret: every key changes with the
//     tokens.
//   - On connection each side proves it holds the key (frame.h, "Session"):
//     the parent's WELCOME carries a tag over the child's HELLO (with the
//     child's fresh nonce) and its own fields and nonce; the child's PROOF
//     a tag over both. Neither can be replayed: each covers the other
//     side's fresh nonce.
//
// The core also confirms an SMDB version's content, not only its epoch: a
// join answer carries the SHA-256 of the core's SMDB serialization at its
// epoch, which a member holding that epoch compares with its own.
//
// Cryptography comes from OpenSSL's libcrypto (HMAC, SHA-256, RAND_bytes,
// CRYPTO_memcmp); nothing here is a primitive of its own. Any thread.
#ifndef IBACM_SSA_COMMON_TREE_LINK_AUTH_H
#define IBACM_SSA_COMMON_TREE_LINK_AUTH_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/tree/ssa_mad.h"

struct evp_mac_ctx_st;  // OpenSSL's EVP_MAC_CTX

namespace ssa {
namespace tree {

using CoreSecret = std::array<uint8_t, 32>;

// Cryptographically random bytes (RAND_bytes; getrandom when it fails).
void RandomBytes(uint8_t* out, size_t n);
CoreSecret NewCoreSecret();

// The core's link keys: HMAC-SHA256 keyed once with its secret (a keyed
// context copied per key: about 1 us, against 2.4 for a one-shot HMAC).
// Derive() only reads the keyed context.
class LinkKeyDeriver {
 public:
  explicit LinkKeyDeriver(const CoreSecret& secret);
  ~LinkKeyDeriver();
  LinkKeyDeriver(const LinkKeyDeriver&) = delete;
  LinkKeyDeriver& operator=(const LinkKeyDeriver&) = delete;
  // The link key of parent `parent` and child `child` with join token
  // `token` (all zero if libcrypto fails: it then matches no peer's tag).
  LinkKey Derive(uint64_t parent, uint64_t child, const Token& token) const;

 private:
  evp_mac_ctx_st* keyed_ = nullptr;
};

// The tags of the data channel's handshake (frame.h): over the HELLO
// payload and the WELCOME's fields before its tag (WelcomeTag), or over
// the HELLO and the whole WELCOME payload (ProofTag).
AuthTag WelcomeTag(const LinkKey& key, const std::string& hello, const std::string& welcome_fields);
AuthTag ProofTag(const LinkKey& key, const std::string& hello, const std::string& welcome);
// Constant-time comparison.
bool TagsEqual(const AuthTag& a, const AuthTag& b);

// SHA-256 of `bytes` (an SMDB's serialization).
ContentDigest Sha256Of(const std::string& bytes);
// "9f86d081...": the first 8 bytes in hex, for logs.
std::string ShortHex(const ContentDigest& d);

}  // namespace tree
}  // namespace ssa

#endif
