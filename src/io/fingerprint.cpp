#include "nodegen/io/fingerprint.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace nodegen::io {

static_assert(std::endian::native == std::endian::little, "the fingerprint hashes the stored little-endian bytes");

struct NodesFingerprint::Contexts {
  std::array<EVP_MD_CTX*, kArrays> ctx{};
  ~Contexts() {
    for (EVP_MD_CTX* c : ctx) EVP_MD_CTX_free(c);
  }
};

namespace {
void check(int ok) {
  if (ok != 1) throw std::runtime_error("SHA-256 failed (OpenSSL)");
}
}  // namespace

NodesFingerprint::NodesFingerprint() : contexts_(std::make_unique<Contexts>()) {
  for (EVP_MD_CTX*& c : contexts_->ctx) {
    c = EVP_MD_CTX_new();
    if (!c) throw std::bad_alloc();
    check(EVP_DigestInit_ex(c, EVP_sha256(), nullptr));
  }
}

NodesFingerprint::~NodesFingerprint() = default;

void NodesFingerprint::add(Array array, const void* data, std::size_t bytes) {
  if (bytes) check(EVP_DigestUpdate(contexts_->ctx[array], data, bytes));
}

std::string NodesFingerprint::finish() {
  EVP_MD_CTX* outer = EVP_MD_CTX_new();
  if (!outer) throw std::bad_alloc();
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int len = 0;
  int ok = EVP_DigestInit_ex(outer, EVP_sha256(), nullptr);
  static constexpr char kTag[] = "nodegen-nodes-v1";
  ok &= EVP_DigestUpdate(outer, kTag, sizeof kTag - 1);
  for (EVP_MD_CTX* c : contexts_->ctx) {
    ok &= EVP_DigestFinal_ex(c, digest.data(), &len);
    ok &= EVP_DigestUpdate(outer, digest.data(), len);
  }
  ok &= EVP_DigestFinal_ex(outer, digest.data(), &len);
  EVP_MD_CTX_free(outer);
  check(ok);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return hex;
}

namespace {
// Feeds interleaved coordinates (x0 y0 x1 y1 ...) in their stored, transposed order, block by block.
void add_transposed(NodesFingerprint& f, NodesFingerprint::Array array, std::span<const double> interleaved, int dim) {
  const auto d = static_cast<std::size_t>(dim);
  const std::size_t n = interleaved.size() / d;
  constexpr std::size_t kBlock = 1 << 14;
  std::vector<double> row(std::min(n, kBlock));
  for (std::size_t k = 0; k < d; ++k)
    for (std::size_t first = 0; first < n; first += kBlock) {
      const std::size_t len = std::min(kBlock, n - first);
      for (std::size_t i = 0; i < len; ++i) row[i] = interleaved[(first + i) * d + k];
      f.add(array, row.data(), len * sizeof(double));
    }
}
}  // namespace

std::string nodes_sha256(const NodeArraysView& nodes, std::span<const double> h) {
  NodesFingerprint f;
  add_transposed(f, NodesFingerprint::pos, nodes.positions, nodes.dim);
  f.add(NodesFingerprint::types, nodes.types.data(), nodes.types.size() * sizeof(std::int32_t));
  f.add(NodesFingerprint::bmap, nodes.bmap.data(), nodes.bmap.size() * sizeof(std::int32_t));
  add_transposed(f, NodesFingerprint::normals, nodes.normals, nodes.dim);
  f.add(NodesFingerprint::h, h.data(), h.size() * sizeof(double));
  return f.finish();
}

std::string nodes_sha256(const NodeArrays& nodes) { return nodes_sha256(nodes.view(), nodes.h); }

}  // namespace nodegen::io
