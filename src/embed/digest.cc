#include "embed/digest.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <openssl/evp.h>

#include "base/status.h"

namespace engram::embed {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr);
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_));
}

void Sha256::Update(std::string_view bytes) {
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), bytes.data(), bytes.size());
}

std::string Sha256::Digest() {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), out, &n);
  return std::string(reinterpret_cast<const char*>(out), n);
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

namespace {

// Calls `chunk` with the file's contents in order.
template <typename Chunk>
Status ForEachChunk(const std::string& path, std::size_t max_bytes, Chunk chunk) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return Status::NotFound(path + ": cannot open: " + std::strerror(errno));
  std::vector<char> buf(std::size_t{1} << 20);
  std::size_t total = 0;
  for (;;) {
    const std::size_t n = std::fread(buf.data(), 1, buf.size(), f.get());
    total += n;
    if (total > max_bytes) {
      return Status::InvalidArgument(path + ": larger than " + std::to_string(max_bytes) +
                                     " bytes");
    }
    if (n > 0) chunk(std::string_view(buf.data(), n));
    if (n < buf.size()) {
      if (std::ferror(f.get()))
        return Status::IoError(path + ": cannot read: " + std::strerror(errno));
      return Status::Ok();
    }
  }
}

}  // namespace

StatusOr<std::string> ReadFile(const std::string& path, std::size_t max_bytes) {
  std::string out;
  RETURN_IF_ERROR(ForEachChunk(path, max_bytes, [&](std::string_view c) { out.append(c); }));
  return out;
}

StatusOr<std::string> FileSha256(const std::string& path, std::size_t max_bytes) {
  Sha256 h;
  RETURN_IF_ERROR(ForEachChunk(path, max_bytes, [&](std::string_view c) { h.Update(c); }));
  return h.Digest();
}

}  // namespace engram::embed
