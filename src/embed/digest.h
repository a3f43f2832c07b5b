// SHA-256 (OpenSSL's EVP interface) for embedder fingerprints and the
// embedding cache's content keys, and reading a whole file with a size bound.
#ifndef ENGRAM_EMBED_DIGEST_H_
#define ENGRAM_EMBED_DIGEST_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram::embed {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void Update(std::string_view bytes);
  std::string Digest();  // the 32 raw bytes; the object is spent after it
  static std::string Of(std::string_view bytes) {
    Sha256 h;
    h.Update(bytes);
    return h.Digest();
  }

 private:
  void* ctx_;  // EVP_MD_CTX
};

std::string Hex(std::string_view bytes);

// The contents of `path`: NotFound when it cannot be opened, IoError when a
// read fails, InvalidArgument when it is larger than `max_bytes`.
StatusOr<std::string> ReadFile(const std::string& path, std::size_t max_bytes);
// The SHA-256 of the file at `path`, read in chunks; failures as ReadFile.
StatusOr<std::string> FileSha256(const std::string& path, std::size_t max_bytes);

}  // namespace engram::embed

#endif  // ENGRAM_EMBED_DIGEST_H_
