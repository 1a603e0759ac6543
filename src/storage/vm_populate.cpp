#include "nodegen/storage/vm_populate.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cerrno>

namespace nodegen {
namespace {

constexpr std::size_t kPage = 4096;

// Set once the kernel has answered EINVAL: asking again on every window would only waste a syscall.
std::atomic<bool> populate_write_unsupported{false};

void touch_each_page(std::byte* p, std::size_t bytes) noexcept {
  for (std::size_t off = 0; off < bytes; off += kPage)
    std::atomic_ref<unsigned char>(reinterpret_cast<unsigned char&>(p[off]))
        .fetch_or(0, std::memory_order_relaxed);
}

}  // namespace

bool populate_for_write(std::byte* p, std::size_t bytes) noexcept {
  if (bytes == 0) return true;
#ifdef MADV_POPULATE_WRITE
  if (!populate_write_unsupported.load(std::memory_order_relaxed)) {
    if (::madvise(p, bytes, MADV_POPULATE_WRITE) == 0) return true;
    if (errno != EINVAL) return false;
    populate_write_unsupported.store(true, std::memory_order_relaxed);
  }
#endif
  touch_each_page(p, bytes);
  return false;
}

}  // namespace nodegen
