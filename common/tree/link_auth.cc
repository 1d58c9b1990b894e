// link_auth.cc: see link_auth.h.
#include "common/tree/link_auth.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <sys/random.h>

#include <climits>
#include <cstdio>
#include <cstring>

#include "common/base/big_endian.h"

namespace ssa {
namespace tree {
namespace {

AuthTag Hmac(const uint8_t* key, size_t key_len, const std::string& message) {
  AuthTag out{};
  unsigned int len = 0;
  // HMAC() fails only on allocation failure; a zero tag then never
  // matches one computed by the peer (a failed handshake, not a pass).
  if (!HMAC(EVP_sha256(), key, static_cast<int>(key_len),
            reinterpret_cast<const unsigned char*>(message.data()), message.size(), out.data(),
            &len) ||
      len != out.size())
    out.fill(0);
  return out;
}

std::string Labelled(const char* label, const std::string& a, const std::string& b) {
  // Lengths first, so that no split of a|b reads as another.
  std::string m(label);
  uint8_t n[8];
  PutBe32(n, static_cast<uint32_t>(a.size()));
  PutBe32(n + 4, static_cast<uint32_t>(b.size()));
  m.append(reinterpret_cast<const char*>(n), sizeof(n));
  m += a;
  m += b;
  return m;
}

}  // namespace

void RandomBytes(uint8_t* out, size_t n) {
  if (n <= INT_MAX && RAND_bytes(out, static_cast<int>(n)) == 1) return;
  // getrandom only fails without entropy at early boot or on EINTR; the
  // bytes then still must not be guessable, so keep trying.
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(out + got, n - got, 0);
    if (r > 0) got += static_cast<size_t>(r);
  }
}

CoreSecret NewCoreSecret() {
  CoreSecret s{};
  RandomBytes(s.data(), s.size());
  return s;
}

LinkKeyDeriver::LinkKeyDeriver(const CoreSecret& secret) {
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  if (!mac) return;
  keyed_ = EVP_MAC_CTX_new(mac);
  EVP_MAC_free(mac);  // the context keeps its own reference
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                         OSSL_PARAM_construct_end()};
  if (keyed_ && !EVP_MAC_init(keyed_, secret.data(), secret.size(), params)) {
    EVP_MAC_CTX_free(keyed_);
    keyed_ = nullptr;
  }
}

LinkKeyDeriver::~LinkKeyDeriver() { EVP_MAC_CTX_free(keyed_); }

LinkKey LinkKeyDeriver::Derive(uint64_t parent, uint64_t child, const Token& token) const {
  uint8_t m[10 + 16 + 16];
  memcpy(m, "ibssa link", 10);
  PutBe64(m + 10, parent);
  PutBe64(m + 18, child);
  memcpy(m + 26, token.data(), token.size());
  LinkKey key{};
  EVP_MAC_CTX* c = keyed_ ? EVP_MAC_CTX_dup(keyed_) : nullptr;
  AuthTag full{};
  size_t len = 0;
  if (c && EVP_MAC_update(c, m, sizeof(m)) && EVP_MAC_final(c, full.data(), &len, full.size()) &&
      len == full.size())
    memcpy(key.data(), full.data(), key.size());
  EVP_MAC_CTX_free(c);
  return key;
}

AuthTag WelcomeTag(const LinkKey& key, const std::string& hello,
                   const std::string& welcome_fields) {
  return Hmac(key.data(), key.size(), Labelled("ibssa welcome", hello, welcome_fields));
}

AuthTag ProofTag(const LinkKey& key, const std::string& hello, const std::string& welcome) {
  return Hmac(key.data(), key.size(), Labelled("ibssa proof", hello, welcome));
}

bool TagsEqual(const AuthTag& a, const AuthTag& b) {
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

ContentDigest Sha256Of(const std::string& bytes) {
  ContentDigest d{};
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), d.data());
  return d;
}

std::string ShortHex(const ContentDigest& d) {
  char buf[17];
  for (size_t i = 0; i < 8; ++i) snprintf(buf + 2 * i, 3, "%02x", d[i]);
  return buf;
}

}  // namespace tree
}  // namespace ssa
