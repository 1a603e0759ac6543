#pragma once
// LockedVectorStore<T>: the paper's reference container, std::vector<T> guarded by a std::shared_mutex.
// Claims take the exclusive lock and resize the vector (which may reallocate and move every element);
// reads and writes take the shared lock, so a growth cannot move an element under an access. It is the
// baseline the VM store is measured against, and a portable fallback.
//
// capacity() is the cap given at construction; the vector grows geometrically on demand and never
// reserves the whole cap up front (the k-d tree constructs stores with caps like 2^32 elements).
#include <algorithm>
#include <cstddef>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nodegen/storage/store_concept.hpp"

namespace nodegen {

template <class T>
class LockedVectorStore {
  static_assert(std::is_trivially_copyable_v<T>, "LockedVectorStore holds trivially copyable elements");

 public:
  using value_type = T;
  struct Options {};

  explicit LockedVectorStore(std::size_t capacity, Options = {}) : cap_(capacity) {}

  LockedVectorStore(const LockedVectorStore&) = delete;
  LockedVectorStore& operator=(const LockedVectorStore&) = delete;
  LockedVectorStore(LockedVectorStore&& other) noexcept : cap_(other.cap_) {
    std::unique_lock lock(other.mutex_);
    elements_ = std::move(other.elements_);
    other.cap_ = 0;
  }
  LockedVectorStore& operator=(LockedVectorStore&&) = delete;

  // Appends n value-initialised (zero) elements under the exclusive lock; returns the first index.
  std::size_t claim(std::size_t n) {
    std::unique_lock lock(mutex_);
    const std::size_t first = elements_.size();
    if (n > cap_ - first)
      throw StoreFull("LockedVectorStore: capacity of " + std::to_string(cap_) +
                      " elements exhausted (claim of " + std::to_string(n) + ")");
    grow_to(first + n);
    return first;
  }

  T get(std::size_t i) const {
    std::shared_lock lock(mutex_);
    return elements_[i];
  }
  void set(std::size_t i, const T& v) {
    std::shared_lock lock(mutex_);  // shared: distinct slots are written by distinct threads
    elements_[i] = v;
  }
  template <class F>
  decltype(auto) access(std::size_t i, F&& f) {
    std::shared_lock lock(mutex_);
    return std::forward<F>(f)(elements_[i]);
  }

  std::size_t size() const {
    std::shared_lock lock(mutex_);
    return elements_.size();
  }
  std::size_t capacity() const { return cap_; }
  std::size_t bytes_resident() const {
    std::shared_lock lock(mutex_);
    return elements_.capacity() * sizeof(T);
  }

 private:
  // Geometric growth as push_back would do, but never past the cap (resize alone could reserve
  // exactly the requested size each time and turn n claims into n reallocations).
  void grow_to(std::size_t new_size) {
    if (new_size > elements_.capacity())
      elements_.reserve(std::min(cap_, std::max(new_size, 2 * elements_.capacity())));
    elements_.resize(new_size);
  }

  std::size_t cap_;
  mutable std::shared_mutex mutex_;
  std::vector<T> elements_;
};

static_assert(NodeStore<LockedVectorStore<std::size_t>>);

}  // namespace nodegen
